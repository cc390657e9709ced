import type { TaskInvariantId } from './check.js';
import type { TaskScenarioRun } from './judge-run.js';

/** The verdict vocabulary shared with the job scenarios (issue 11: one report, one vocabulary, one pass rule). */
export type VerdictStatus = 'pass' | 'fail' | 'not_exercised' | 'skipped' | 'not_applicable';

export interface TaskInvariantVerdict {
  id: TaskInvariantId;
  title: string;
  status: VerdictStatus;
  /** Why, for anything but pass. */
  reason?: string;
  violations: string[];
}

/** One task scenario × invariant row set, in the common vocabulary, ready to fold into the certification report. */
export interface TaskScenarioVerdict {
  family: 'tasks';
  scenario: string;
  status: VerdictStatus;
  reason?: string;
  invariants: TaskInvariantVerdict[];
  /** Scenario expectations not met, harness steps refused unexpectedly, protocol faults of the client. */
  problems: string[];
  diagnostics: string[];
  elapsed_ms: number;
}

/**
 * pass: judged and held. fail: a violation, or a scenario expectation not met. not_exercised: nothing in the run for
 * the invariant to judge (e.g. no apply was sent), or a race the client won legitimately kept the scenario's point
 * from happening. A run counts as passed unless something failed.
 */
export function taskScenarioVerdict(run: TaskScenarioRun): TaskScenarioVerdict {
  const invariants = Object.values(run.verdict.results).map((r): TaskInvariantVerdict => ({
    id: r.id, title: r.title, violations: r.violations,
    status: r.status === 'vacuous' ? 'not_exercised' : r.status,
    ...(r.status === 'vacuous' ? { reason: 'nothing in this run for it to judge' } : {}),
  }));
  const failed = invariants.some((i) => i.status === 'fail') || run.problems.length > 0;
  const status: VerdictStatus = failed ? 'fail' : run.not_exercised.length > 0 ? 'not_exercised' : 'pass';
  const reason = failed ? [...run.verdict.failed.map((id) => `${id} broken`), ...run.problems].join('; ') : run.not_exercised.join('; ') || undefined;
  return { family: 'tasks', scenario: run.scenario, status, ...(reason ? { reason } : {}), invariants, problems: run.problems, diagnostics: run.diagnostics, elapsed_ms: run.elapsed_ms };
}

export const taskRunPassed = (v: TaskScenarioVerdict): boolean => v.status !== 'fail';
