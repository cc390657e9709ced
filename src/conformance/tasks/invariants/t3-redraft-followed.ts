import type { TaskEvidence } from '../evidence.js';
import type { TaskCheck } from './task-check.js';
import { appliedOverLapse, clientApplies, isReconcile, type TaskLine } from '../task-lines.js';

function redraftSeqs(ev: TaskEvidence, l: TaskLine, lines: Map<string, TaskLine>): number[] {
  const edits = ev.harness
    .filter(
      (h) => h.kind === 'put_object' && h.object_ref === l.object_ref && (h.tenant ?? l.tenant) === l.tenant && h.after_seq >= l.createSeq,
    )
    .map((h) => h.after_seq + 0.5);
  const stale = l.entries.filter((e) => e.route === 'apply' && e.code === 'stale_object_version').map((e) => e.seq);
  const others = [...lines.values()]
    .filter((o) => o.task_id !== l.task_id && o.object_ref === l.object_ref && o.tenant === l.tenant)
    .flatMap((o) => o.entries.filter((e) => e.route === 'apply' && e.effect === 'applied').map((e) => e.seq));
  return [...edits, ...stale, ...others].filter((s) => s > l.createSeq);
}

function t3(ev: TaskEvidence, lines: Map<string, TaskLine>): { v: string[]; judged: boolean } {
  const v: string[] = [];
  let judged = false;
  for (const l of lines.values()) {
    const redrafts = redraftSeqs(ev, l, lines);
    if (redrafts.length === 0) continue;
    const applies = clientApplies(ev, l);
    for (const a of applies) {
      if (a.seq < Math.min(...redrafts)) continue;
      judged = true;
      if (isReconcile(applies, a)) continue;
      const lapse = appliedOverLapse(ev, l, a, redrafts);
      if (lapse !== null)
        v.push(`task ${l.task_id}: apply (seq ${a.seq}) after a redraft (at seq ${Math.floor(lapse)}) with no new approval`);
    }
    // The client's own history: after it saw a redraft, it never went to applying under an approval of an older proposal.
    for (const op of ev.client.ops.filter((o) => o.task_id === l.task_id)) {
      let seen = 0;
      for (const h of op.history) {
        const pv = typeof h.proposal_version === 'number' ? h.proposal_version : null;
        if (pv !== null && h.to === 'waiting') seen = Math.max(seen, pv);
        const ap = h.approval;
        if (h.to === 'applying' && ap && seen > 1) {
          judged = true;
          if (ap.proposal_version < seen)
            v.push(
              `op ${op.task_op_id}: went to applying under an approval of proposal ${ap.proposal_version} after seeing proposal ${seen}`,
            );
        }
      }
    }
  }
  return { v, judged };
}

/** T3 redraft-followed: after a redraft no apply under the old approval; a new approval first. */
export const T3_REDRAFT_FOLLOWED: TaskCheck = {
  id: 'T3',
  judge: (ev, lines) => {
    const r = t3(ev, lines);
    return { violations: r.v, judged: r.judged };
  },
};
