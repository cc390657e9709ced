import type { RequestEntry } from '../../../contract/journal.js';
import type { CheckContext, InvariantCheck } from '../context.js';
import { delivered, describeRequest, failure, ms, sentAt } from '../helpers.js';
import type { Failure } from '../verdict.js';

/**
 * A cancel attempt whose outcome the sender could not know: the answer was lost, was a 5xx/429/408, or an
 * idempotent request still in progress — or its worker was killed before it could record the answer, or it was
 * still unanswered when another worker (the new lease holder) sent the next.
 */
function ambiguous(ctx: CheckContext, prev: RequestEntry, next: RequestEntry): boolean {
  if (!delivered(prev) || prev.status >= 500 || prev.status === 429 || prev.status === 408) return true;
  if (prev.status === 409 && prev.code === 'idempotency_request_in_progress') return true;
  if (next.worker_id === prev.worker_id) return false;
  return (
    sentAt(next) < ms(prev.at) ||
    ctx.evidence.harness.some(
      (h) => h.type === 'kill' && h.worker_id === prev.worker_id && ms(h.at) >= ms(prev.at) && ms(h.at) <= ms(next.at),
    )
  );
}

/** I6: one cancel request per intent, repeated only after an ambiguous attempt; none without an intent. */
export const i06OneCancel: InvariantCheck = {
  id: 'I6',
  judge(ctx) {
    const failures: Failure[] = [];
    const ops = ctx.operations.filter((op) => op.cancelIntents.length > 0 || op.requests.some((r) => r.route === 'cancel'));
    for (const op of ops) {
      // In the order the client sent them: a held cancel executes (and is journalled) after one sent later, and the
      // later one was the repeat (a held cancel given up and sent again executes after its repeat).
      const cancels = op.requests.filter((r) => r.route === 'cancel').sort((a, b) => sentAt(a) - sentAt(b) || a.seq - b.seq);
      if (cancels.length && !op.cancelIntents.length) {
        failures.push(
          failure(
            op.id,
            `${op.id} sent cancel ${describeRequest(cancels[0]!)} although nobody asked to cancel it`,
            cancels.map((c) => c.seq),
          ),
        );
        continue;
      }
      cancels.forEach((c, i) => {
        const prev = cancels[i - 1];
        if (prev && !ambiguous(ctx, prev, c)) {
          failures.push(
            failure(
              op.id,
              `${op.id} sent cancel again (${describeRequest(c)}) after ${describeRequest(prev)} had been answered; send a cancel once, by the lease owner, and repeat it only after an ambiguous failure`,
              [prev.seq, c.seq],
              op.record?.history ?? [],
            ),
          );
        }
      });
    }
    return { applicable: ops.length > 0, failures };
  },
};
