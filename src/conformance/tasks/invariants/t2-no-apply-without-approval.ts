import type { TaskEvidence } from '../evidence.js';
import type { TaskCheck } from './task-check.js';
import { appliedOverLapse, clientApplies, isReconcile, type TaskLine } from '../task-lines.js';

function t2(ev: TaskEvidence, lines: Map<string, TaskLine>): string[] {
  const v: string[] = [];
  for (const l of lines.values()) {
    const applies = clientApplies(ev, l);
    // Lapses of approval by review: creation (none yet), revoke or reject, and an apply refused for want of one.
    const lapses = [
      l.createSeq,
      ...l.entries.filter((e) => e.route === 'review' && e.effect === 'reviewed' && e.task_state !== 'approved').map((e) => e.seq),
      ...l.entries.filter((e) => e.route === 'apply' && e.code === 'approval_required' && e.delivery === 'delivered').map((e) => e.seq),
    ];
    for (const a of applies) {
      if (isReconcile(applies, a)) continue;
      const lapse = appliedOverLapse(ev, l, a, lapses);
      if (lapse !== null) v.push(`task ${l.task_id}: apply (seq ${a.seq}) sent with no approval since seq ${lapse}`);
    }
  }
  return v;
}

/** T2 no-apply-without-approval: no apply sent while the task had no approval the client could know of. */
export const T2_NO_APPLY_WITHOUT_APPROVAL: TaskCheck = {
  id: 'T2',
  judge: (ev, lines) => ({ violations: t2(ev, lines), judged: [...lines.values()].some((l) => clientApplies(ev, l).length > 0) }),
};
