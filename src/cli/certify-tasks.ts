import { taskCase } from '../conformance/report/build.js';
import type { ReportCase } from '../conformance/report/schema.js';

export type TaskClientSpec = { kind: 'in-process' } | { kind: 'process'; command: string; label: string };

/**
 * The task scenarios (tasks-api.md) for `certify --tasks`: through the client command's task verbs as child
 * processes (client-protocol.md), or the reference task client in-process. One line per scenario as it ends; the
 * cases go into the one certification report.
 */
export async function runTaskCatalog(
  client: TaskClientSpec,
  opts: { timeScale: number; parallel: number },
  out: (s: string) => void,
): Promise<ReportCase[]> {
  const { TASK_SCENARIOS, runTaskScenario, runTaskScenarioProcess } = await import('../conformance/tasks/index.js');
  const n = TASK_SCENARIOS.length;
  out(
    `\ntask scenarios: ${n} (${client.kind === 'process' ? `${client.label}, as processes: task submit/work/show; time scale ${opts.timeScale}×` : 'reference task client, in-process'})`,
  );
  const run = async (i: number) => {
    const s = TASK_SCENARIOS[i]!;
    if (client.kind === 'process') return runTaskScenarioProcess(s, client.command, { timeScale: opts.timeScale });
    const { createTaskClient } = await import('../reference-client/tasks/index.js');
    return runTaskScenario(s, (env) => createTaskClient({ ...env, workerId: 'task-worker-1' }));
  };
  const cases: ReportCase[] = new Array(n);
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      const wall = Date.now();
      const r = await run(i);
      const k = taskCase(r, Date.now() - wall);
      cases[i] = k;
      const mark = k.verdict === 'pass' ? 'pass' : k.verdict === 'fail' ? 'FAIL' : k.verdict.replace('_', ' ');
      out(
        `[${String(++done).padStart(String(n).length)}/${n}] ${k.name.padEnd(24)} ${mark}  ${(k.wall_ms / 1000).toFixed(1)} s${k.reason && k.verdict !== 'pass' ? `  — ${k.reason}` : ''}`,
      );
      for (const f of k.failures.slice(0, 8)) out(`    ${f}`);
      for (const d of k.diagnostics.slice(0, 3)) out(`    client: ${d}`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, client.kind === 'process' ? opts.parallel : 1) }, lane));
  return cases;
}
