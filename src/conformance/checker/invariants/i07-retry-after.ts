import type { InvariantCheck } from '../context.js';
import { delivered, describeRequest, failure, iso, ms, sendTimeKnown, sentAt } from '../helpers.js';
import type { Failure } from '../verdict.js';

const BINDING = new Set([429, 503, 409]);

/**
 * I7: after a delivered 429/503/409 carrying Retry-After, the same worker sends nothing for that operation until
 * it elapsed (minus the tolerance). Another worker cannot have seen the answer, so it is not held to it. The
 * Retry-After on a 200 status read is advice, judged by I8's budget. A request held by a delay fault is journaled
 * when answered, so it may have been sent before the 429 came back: it is not counted.
 */
export const i07RetryAfter: InvariantCheck = {
  id: 'I7',
  judge(ctx) {
    const failures: Failure[] = [];
    let applicable = false;
    for (const op of ctx.operations) {
      for (const r of op.requests) {
        if (!BINDING.has(r.status) || r.retry_after === null || !delivered(r)) continue;
        applicable = true;
        const until = ms(r.at) + r.retry_after * 1000;
        const early = op.requests.find(
          (q) =>
            q.seq > r.seq &&
            q.worker_id === r.worker_id &&
            sendTimeKnown(q) &&
            sentAt(q) >= ms(r.at) &&
            sentAt(q) < until - ctx.options.retry_after_tolerance_ms,
        );
        if (early) {
          failures.push(
            failure(
              op.id,
              `${op.id} sent ${describeRequest(early)} at ${early.at}, ${ms(early.at) - ms(r.at)} ms after ${describeRequest(r)} said Retry-After: ${r.retry_after} (wait until ${iso(until)})`,
              [r.seq, early.seq],
              op.record?.history ?? [],
            ),
          );
        }
      }
    }
    return { applicable, failures };
  },
};
