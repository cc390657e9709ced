import type { CaseVerdict } from '../outcome.js';
import type { ReportCase } from '../report/schema.js';
import type { TaskScenarioRun } from '../tasks/judge-run.js';

/** A task scenario run as a case: it fails on a broken task invariant or an expectation of the scenario not met. */
export function taskCase(
  run: Pick<TaskScenarioRun, 'scenario' | 'verdict' | 'problems' | 'finished' | 'elapsed_ms'> &
    Partial<Pick<TaskScenarioRun, 'not_exercised' | 'diagnostics'>>,
  wallMs: number,
): ReportCase {
  const results = Object.values(run.verdict.results);
  const failures = [...results.flatMap((r) => r.violations.map((v) => `${r.id} ${r.name} — ${v}`)), ...run.problems];
  const failed = !run.verdict.ok || run.problems.length > 0 || !run.finished;
  const held = results.some((r) => r.status === 'held');
  const missed = run.not_exercised ?? [];
  const verdict: CaseVerdict = failed ? 'fail' : !held ? 'fail' : missed.length ? 'not_exercised' : 'pass';
  return {
    kind: 'task',
    name: run.scenario,
    verdict,
    reason:
      verdict === 'pass'
        ? null
        : verdict === 'not_exercised'
          ? missed.join('; ')
          : !run.finished
            ? 'the run hit its time bound before every task was final'
            : held || failures.length
              ? `broken: ${run.verdict.failed.join(' ') || 'scenario expectations'}`
              : 'nothing tested',
    failures,
    invariants: Object.fromEntries(results.map((r) => [r.id, r.status])),
    time_bound_hit: !run.finished,
    run_ms: run.elapsed_ms,
    wall_ms: wallMs,
    diagnostics: run.diagnostics ?? [],
    schedules: null,
  };
}
