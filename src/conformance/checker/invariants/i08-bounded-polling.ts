import type { CheckOptions } from '../evidence.js';
import type { InvariantCheck } from '../context.js';
import { delivered, failure, ms } from '../helpers.js';
import type { Failure } from '../verdict.js';

/**
 * Polls a capped exponential backoff makes over a span of `span` ms: one at the start, then one after each delay
 * d_i = min(base · 2^i, cap) while the delays add up to no more than `span`:
 *   n(span) = 1 + max{ k : Σ_{i<k} min(base · 2^i, cap) ≤ span }
 */
export function backoffPolls(span: number, o: Pick<CheckOptions, 'poll_base_ms' | 'poll_cap_ms'>): number {
  let n = 1;
  let used = 0;
  for (let i = 0; ; i++) {
    const d = Math.min(o.poll_base_ms * 2 ** i, o.poll_cap_ms);
    if (used + d > span) return n;
    used += d;
    n++;
  }
}

/**
 * I8 budget per job:  n(span) × owners + webhooks + slack, with n computed for cap = min(poll_cap_ms, advice)
 *   advice  = the smallest positive Retry-After (as ms) the provider put on a delivered 200 read of the job:
 *             a client polling as often as the provider advised is not hot-looping
 *   span    = last status read of the job − the job's creation (its first transition; else the first poll)
 *   owners  = distinct workers that polled it (a new owner may start its backoff afresh)
 *   webhooks = delivered webhook attempts for the job (each may prompt one confirming read, I13)
 *   slack   = options.poll_slack
 */
export const i08BoundedPolling: InvariantCheck = {
  id: 'I8',
  judge(ctx) {
    const failures: Failure[] = [];
    let applicable = false;
    for (const op of ctx.operations) {
      for (const job of new Set([...op.jobIds, ...op.foreignJobIds])) {
        const polls = op.requests.filter((r) => r.route === 'status' && r.job_id === job);
        if (!polls.length) continue;
        applicable = true;
        const facts = ctx.jobFacts(job);
        const start = Math.min(facts?.createdAt ?? Infinity, ms(polls[0]!.at));
        const span = ms(polls.at(-1)!.at) - start;
        const owners = new Set(polls.map((p) => p.worker_id)).size;
        const webhooks = (facts?.webhooks ?? []).filter((w) => w.outcome === 'delivered').length;
        const advised = polls.filter((p) => p.status === 200 && delivered(p) && (p.retry_after ?? 0) > 0).map((p) => p.retry_after! * 1000);
        const cap = Math.min(ctx.options.poll_cap_ms, ...advised);
        const budget =
          backoffPolls(span, { poll_base_ms: Math.min(ctx.options.poll_base_ms, cap), poll_cap_ms: cap }) * owners +
          webhooks +
          ctx.options.poll_slack;
        if (polls.length > budget) {
          failures.push(
            failure(
              op.id,
              `${op.id} polled job ${job} ${polls.length} times in ${span} ms; the budget is ${budget} (backoff from ${ctx.options.poll_base_ms} ms doubling to ${cap} ms, ${owners} worker(s), ${webhooks} webhook(s), slack ${ctx.options.poll_slack}): back off between polls`,
              polls.map((p) => p.seq),
            ),
          );
        }
      }
    }
    return { applicable, failures };
  },
};
