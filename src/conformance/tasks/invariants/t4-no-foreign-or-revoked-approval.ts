import type { TaskEvidence } from '../evidence.js';
import type { TaskCheck } from './task-check.js';
import type { TaskLine } from '../task-lines.js';

function t4(ev: TaskEvidence, lines: Map<string, TaskLine>): string[] {
  const v: string[] = [];
  for (const l of lines.values()) {
    for (const a of l.entries.filter((e) => e.route === 'apply' && e.effect === 'applied')) {
      const review = [...l.entries].reverse().find((e) => e.route === 'review' && e.effect === 'reviewed' && e.seq < a.seq);
      if (review?.task_state !== 'approved') v.push(`task ${l.task_id}: applied (seq ${a.seq}) when the last review was not an approval`);
      else if (review.tenant !== l.tenant) v.push(`task ${l.task_id}: applied under an approval from tenant ${review.tenant}`);
      else if (review.subject === l.initiator) v.push(`task ${l.task_id}: applied under the initiator's own approval`);
    }
  }
  for (const t of ev.provider.tasks.filter((x) => x.state === 'applied')) {
    const r = t.review;
    const p = t.result?.proposal;
    if (r?.decision !== 'approved') v.push(`task ${t.task_id}: applied, its review is ${r?.decision ?? 'none'}`);
    else if (r.reviewer === t.initiator) v.push(`task ${t.task_id}: applied under the initiator's approval`);
    else if (!p || r.proposal_version !== p.proposal_version || r.proposal_sha256 !== p.sha256)
      v.push(`task ${t.task_id}: applied under an approval of another proposal`);
  }
  for (const op of ev.client.ops) {
    op.history.forEach((h, i) => {
      if (h.to !== 'applying' || h.from === 'applying') return;
      const ap = h.approval;
      if (!ap) {
        v.push(`op ${op.task_op_id}: decided to apply (history ${i + 1}) without recording the approval it relied on`);
        return;
      }
      const cur: { proposal_version?: number | null; sha256?: string | null; initiator?: string | null } = h.current ?? {};
      const why =
        ap.decision !== 'approved'
          ? `a ${ap.decision} review`
          : ap.reviewer === cur.initiator
            ? "the initiator's own review"
            : ap.proposal_version !== cur.proposal_version || ap.proposal_sha256 !== cur.sha256
              ? `an approval of proposal ${ap.proposal_version} while proposal ${cur.proposal_version} was current`
              : null;
      if (why) v.push(`op ${op.task_op_id}: decided to apply (history ${i + 1}) under ${why}`);
      else if (
        op.task_id &&
        !ev.journal.some(
          (e) =>
            e.type === 'request' &&
            e.route === 'review' &&
            e.task_id === op.task_id &&
            e.effect === 'reviewed' &&
            e.task_state === 'approved' &&
            e.subject === ap.reviewer &&
            e.tenant === ev.client.tenant,
        )
      ) {
        v.push(`op ${op.task_op_id}: relied on an approval by ${ap.reviewer} that no review of this tenant gave`);
      }
    });
  }
  return v;
}

/** T4 no-foreign-or-revoked-approval: never apply under an approval by another tenant, the initiator, a revoked one or one of a stale proposal. */
export const T4_NO_FOREIGN_OR_REVOKED_APPROVAL: TaskCheck = {
  id: 'T4',
  judge: (ev, lines) => ({
    violations: t4(ev, lines),
    judged:
      [...lines.values()].some((l) => l.entries.some((e) => e.route === 'apply' && e.effect === 'applied')) ||
      ev.client.ops.some((o) => o.history.some((h) => h.to === 'applying')),
  }),
};
