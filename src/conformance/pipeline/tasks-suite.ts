import { availableParallelism } from 'node:os';
import type { InProcessTaskClientFactory } from '../../contract/task-client-protocol.js';
import { TASK_SCENARIOS, taskScenario, type TaskScenario } from '../../scenarios/index.js';
import type { ReportCase } from '../report/schema.js';
import type { TaskScenarioRun } from '../tasks/judge-run.js';
import { runTaskScenarioProcess } from '../tasks/process-runner.js';
import { runTaskScenario } from '../tasks/runner.js';
import { taskCase } from './task-case.js';
import { head, mark } from './lines.js';
import type { CertificationPlan, TasksSuitePlan } from './plan.js';
import { runInLanes, type ScenarioDriver, type Suite, type SuiteContext, type SuiteResult } from './suite.js';

/** The tasks suite's driver: one task scenario through the client command's task verbs, or an in-process task client. */
function taskDriver(plan: CertificationPlan, timeScale: number): ScenarioDriver<TaskScenario, TaskScenarioRun> {
  const c = plan.client;
  if (c.kind === 'process') return { kind: 'process', run: (s) => runTaskScenarioProcess(s, c.command, { timeScale }) };
  const factory: InProcessTaskClientFactory | undefined = c.tasks;
  if (!factory) throw new Error('the tasks suite needs an in-process task client factory');
  return { kind: 'in-process', run: (s) => runTaskScenario(s, factory) };
}

/**
 * The tasks suite (tasks-api.md): the task scenarios, judged T1–T5 and held to each scenario's expectations, one
 * line per scenario as it ends. The task scenarios are few: with a shard, part 1 runs them all.
 */
export function tasksSuite(tasks: TasksSuitePlan): Suite {
  return {
    name: 'tasks',
    async run({ plan, timeScale, parallel, out }: SuiteContext): Promise<SuiteResult> {
      if (plan.shard && plan.shard.index !== 1) return { cases: [] };
      const scenarios = tasks.scenarios ? tasks.scenarios.map(taskScenario) : TASK_SCENARIOS;
      // Task runs start their clock when every task exists at the provider, so a slow client start costs them
      // nothing: the calibrated stretch is not needed (it would make no-approval-yet wait minutes); a given scale is kept.
      const scale = timeScale.source === 'flag' ? timeScale.factor : 1;
      const driver = taskDriver(plan, scale);
      // Unstretched, they get no more lanes than cores unless asked.
      const lanes = driver.kind === 'in-process' ? 1 : plan.parallelGiven ? parallel : Math.min(parallel, availableParallelism());
      const n = scenarios.length;
      out(
        `\ntask scenarios: ${n} (${plan.client.kind === 'process' ? `${plan.label}, as processes: task submit/work/show; time scale ${scale}×` : 'reference task client, in-process'})`,
      );
      const cases: ReportCase[] = new Array(n);
      const walls = new Map<number, number>();
      const taskRuns = await runInLanes(scenarios, driver, {
        lanes,
        onStart: (_s, i) => walls.set(i, Date.now()),
        onResult: (r, done, i) => {
          const k = taskCase(r, Date.now() - walls.get(i)!);
          cases[i] = k;
          out(
            `${head(done, n, k.name)} ${mark(k.verdict)}  ${(k.wall_ms / 1000).toFixed(1)} s${k.reason && k.verdict !== 'pass' ? `  — ${k.reason}` : ''}`,
          );
          for (const f of k.failures.slice(0, 8)) out(`    ${f}`);
          for (const d of k.diagnostics.slice(0, 3)) out(`    client: ${d}`);
        },
      });
      return { cases, taskRuns };
    },
  };
}
