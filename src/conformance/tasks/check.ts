import { TASK_INVARIANT_IDS, TASK_INVARIANTS, type TaskInvariantId } from '../../contract/invariants.js';
import type { TaskEvidence } from './evidence.js';
import { T1_APPLY_ONCE } from './invariants/t1-apply-once.js';
import { T2_NO_APPLY_WITHOUT_APPROVAL } from './invariants/t2-no-apply-without-approval.js';
import { T3_REDRAFT_FOLLOWED } from './invariants/t3-redraft-followed.js';
import { T4_NO_FOREIGN_OR_REVOKED_APPROVAL } from './invariants/t4-no-foreign-or-revoked-approval.js';
import { T5_APPLY_KEY_DISCIPLINE } from './invariants/t5-apply-key-discipline.js';
import type { TaskCheck } from './invariants/task-check.js';
import { linesOf } from './task-lines.js';

export { TASK_INVARIANT_IDS, TASK_INVARIANTS, type TaskInvariantId } from '../../contract/invariants.js';

/** T1–T5 in id order, one file each (invariants/). */
export const TASK_CHECKS: readonly TaskCheck[] = [
  T1_APPLY_ONCE,
  T2_NO_APPLY_WITHOUT_APPROVAL,
  T3_REDRAFT_FOLLOWED,
  T4_NO_FOREIGN_OR_REVOKED_APPROVAL,
  T5_APPLY_KEY_DISCIPLINE,
];

export interface TaskInvariantResult {
  id: TaskInvariantId;
  name: string;
  /** The same vocabulary as I1–I15: `not_applicable` when the evidence held nothing to judge (e.g. no apply was sent). */
  status: 'held' | 'broken' | 'not_applicable';
  violations: string[];
}
export interface TaskVerdict {
  ok: boolean;
  results: Record<TaskInvariantId, TaskInvariantResult>;
  failed: TaskInvariantId[];
}

/** The pure judge: T1–T5 over a run's evidence. */
export function checkTasks(ev: TaskEvidence): TaskVerdict {
  const lines = linesOf(ev);
  const results = {} as Record<TaskInvariantId, TaskInvariantResult>;
  for (const c of TASK_CHECKS) {
    const r = c.judge(ev, lines);
    const name = TASK_INVARIANTS.find((i) => i.id === c.id)!.name;
    const status = r.violations.length > 0 ? 'broken' : r.judged ? 'held' : 'not_applicable';
    results[c.id] = { id: c.id, name, status, violations: r.violations };
  }
  const failed = TASK_INVARIANT_IDS.filter((id) => results[id].status === 'broken');
  return { ok: failed.length === 0, results, failed };
}
