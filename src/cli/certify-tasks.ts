import type { TaskScenarioVerdict } from '../conformance/tasks/verdicts.js';

export type TaskClientSpec = { kind: 'in-process' } | { kind: 'process'; command: string; label: string };

/**
 * The task scenarios (tasks-api.md) for `certify --tasks`: through the client command as child processes (the task
 * verbs of client-protocol.md), or the reference task client in-process. One line per scenario as it ends.
 */
export async function runTaskCatalog(
  client: TaskClientSpec, opts: { timeScale: number; parallel: number }, out: (s: string) => void,
): Promise<TaskScenarioVerdict[]> {
  const { TASK_SCENARIOS, runTaskScenario, runTaskScenarioProcess, taskScenarioVerdict } = await import('../conformance/tasks/index.js');
  out(`\ntask scenarios: ${TASK_SCENARIOS.length} (${client.kind === 'process' ? `${client.label}, as processes (task submit/work/show)` : 'reference task client, in-process'})`);
  const run = async (i: number) => {
    const s = TASK_SCENARIOS[i]!;
    if (client.kind === 'process') return runTaskScenarioProcess(s, client.command, { timeScale: opts.timeScale });
    const { createTaskClient } = await import('../reference-client/tasks/index.js');
    return runTaskScenario(s, (env) => createTaskClient({ ...env, workerId: 'task-worker-1' }));
  };
  const verdicts: TaskScenarioVerdict[] = new Array(TASK_SCENARIOS.length);
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < TASK_SCENARIOS.length) {
      const i = next++;
      const v = taskScenarioVerdict(await run(i));
      verdicts[i] = v;
      done++;
      const mark = v.status === 'pass' ? 'pass' : v.status === 'fail' ? 'FAIL' : v.status.replace('_', ' ');
      const broken = v.invariants.filter((x) => x.status === 'fail').map((x) => x.id);
      out(`[${done}/${TASK_SCENARIOS.length}] ${v.scenario.padEnd(24)} ${mark}  ${(v.elapsed_ms / 1000).toFixed(1)} s${broken.length ? `  broken: ${broken.join(' ')}` : ''}${v.status === 'not_exercised' ? `  (${v.reason})` : ''}`);
      for (const inv of v.invariants.filter((x) => x.status === 'fail')) for (const m of inv.violations.slice(0, 5)) out(`    ${inv.id}: ${m}`);
      for (const p of v.problems) out(`    ${p}`);
      for (const d of v.diagnostics.slice(0, 3)) out(`    client: ${d}`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, client.kind === 'process' ? opts.parallel : 1) }, lane));
  return verdicts;
}
