import { canonicalJson } from '../../../lib/canonical-json.js';
import { isAllowedTransition, type OperationRecord } from '../../../contract/client-protocol.js';
import type { InvariantCheck } from '../context.js';
import { failure, ms } from '../helpers.js';
import type { Failure } from '../verdict.js';

/** The first thing wrong with one history, or null. */
function historyFault(r: OperationRecord): { why: string; at: number } | null {
  if (!r.history.length) return { why: 'has an empty history', at: -1 };
  for (let i = 0; i < r.history.length; i++) {
    const h = r.history[i]!;
    const prev = r.history[i - 1];
    const expectedFrom = prev ? prev.to : null;
    if (h.from !== expectedFrom)
      return { why: `history entry ${i} goes from ${h.from} but the previous entry ended in ${expectedFrom}`, at: i };
    if (!isAllowedTransition(h.from, h.to))
      return { why: `history entry ${i} (${h.from} → ${h.to}) is a transition the state machine does not allow`, at: i };
    if (Number.isNaN(ms(h.at))) return { why: `history entry ${i} has no valid time (${h.at})`, at: i };
    if (prev && ms(h.at) < ms(prev.at)) return { why: `history entry ${i} at ${h.at} goes back in time from ${prev.at}`, at: i };
  }
  const last = r.history.at(-1)!;
  if (last.to !== r.state) return { why: `state is ${r.state} but the history ends in ${last.to}`, at: r.history.length - 1 };
  return null;
}

/** I15: append-only (every earlier snapshot a prefix of the later), allowed steps only, time never going back. */
export const i15History: InvariantCheck = {
  id: 'I15',
  judge(ctx) {
    const failures: Failure[] = [];
    for (const op of ctx.operations) {
      if (!op.record) {
        failures.push(failure(op.id, `${op.id} was submitted but show printed no record for it`));
        continue;
      }
      for (const snap of op.snapshots) {
        const fault = historyFault(snap);
        if (fault) failures.push(failure(op.id, `${op.id} ${fault.why}`, [], snap.history.slice(Math.max(0, fault.at - 1), fault.at + 1)));
      }
      op.snapshots.forEach((snap, i) => {
        const next = op.snapshots[i + 1];
        if (!next) return;
        const rewritten = snap.history.findIndex((h, j) => !next.history[j] || canonicalJson(h) !== canonicalJson(next.history[j]));
        if (rewritten >= 0) {
          failures.push(
            failure(
              op.id,
              `${op.id}'s history was rewritten between two show snapshots (entry ${rewritten} changed or vanished); history is append-only`,
              [],
              [snap.history[rewritten]!],
            ),
          );
        }
      });
    }
    return { applicable: ctx.operations.length > 0, failures };
  },
};
