import { RETRY_AFTER_MARGIN_MS } from './backoff.js';
import { problemCode, retryDelay } from './http.js';
import { describe, isBackOff } from './job-answer.js';
import type { OpStep } from './op-step.js';

/** Ambiguous fetch failures are retried at least this many times, even past the result deadline. */
export const MIN_COLLECT_ATTEMPTS = 5;

/**
 * What collecting starts from. The minimum of retried fetches is owed to a job that succeeded by the result deadline
 * (I3); one that succeeded after it gets a single fetch (past the deadline polling stops, I12), which the counter
 * expresses by starting one short of the minimum — the store has no other field for it.
 */
export function collectStart(
  r: { collect_attempts: number; result_deadline_at: number },
  to: string,
  job: { updated_at: string },
): { collect_attempts?: number } {
  if (to !== 'result_collecting' || Date.parse(job.updated_at) <= r.result_deadline_at) return {};
  return { collect_attempts: Math.max(r.collect_attempts, MIN_COLLECT_ATTEMPTS - 1) };
}

/**
 * Collect: fetch the results once they exist, verify them, and keep only their digest, location and counts (the
 * body is the caller's to fetch again; we prove what it was). `succeeded` is written only after verification.
 */
export async function collectStep(s: OpStep): Promise<void> {
  const r = s.rec;
  const expected = r.expected_result;
  if (!expected) {
    await s.commit({
      moves: [{ to: 'needs_attention', evidence: 'contract_violation', cause: 'no result description to verify against' }],
    });
    return;
  }
  const fetched = await s.wire.results(s, expected);
  const { call: o, location: path } = fetched;
  const now = s.now();
  const attempts = r.collect_attempts + 1;
  if (o.kind === 'answer' && o.status === 200 && fetched.verification) {
    const v = fetched.verification;
    if (v.ok) {
      await s.commit({
        moves: [{ to: 'succeeded', evidence: 'results_verified', cause: 'results fetched and verified', call: o, jobId: r.remote_job_id }],
        patch: {
          collect_attempts: attempts,
          result_sha256: v.sha256,
          result_location: path,
          items_total: v.items_total,
          items_failed: v.items_failed,
        },
      });
    } else {
      await s.commit({
        moves: [{ to: 'result_validation_failed', evidence: 'results_invalid', cause: v.reason, call: o, jobId: r.remote_job_id }],
        patch: { collect_attempts: attempts, result_location: path, reason: v.reason },
      });
    }
    return;
  }
  if (fetched.gone) {
    await s.commit({
      moves: [
        { to: 'result_unavailable', evidence: 'results_gone', cause: `provider says the results are gone (${describe(o)})`, call: o },
      ],
      patch: { collect_attempts: attempts, result_location: path, reason: problemCode(o) ?? 'results_gone' },
    });
    return;
  }
  if (o.kind === 'answer' && (o.status === 404 || (o.status === 409 && problemCode(o) === 'job_not_succeeded'))) {
    await s.commit({
      moves: [
        { to: 'needs_attention', evidence: 'contract_violation', cause: `a succeeded job's results answered ${describe(o)}`, call: o },
      ],
      patch: { collect_attempts: attempts, reason: describe(o) },
    });
    return;
  }
  if (now >= r.result_deadline_at && attempts >= MIN_COLLECT_ATTEMPTS) {
    await s.commit({
      moves: [
        {
          to: 'result_unavailable',
          evidence: 'result_deadline',
          cause: `results could not be fetched by the deadline (last: ${describe(o)})`,
          call: o,
        },
      ],
      patch: { collect_attempts: attempts, reason: 'results not fetched before the result deadline' },
    });
    return;
  }
  const notBefore = isBackOff(o) ? now + o.retryAfterMs! + RETRY_AFTER_MARGIN_MS : r.not_before;
  const delay = retryDelay(o, r.attempt, r.operation_id);
  await s.commit({
    patch: { collect_attempts: attempts, attempt: r.attempt + 1, not_before: notBefore, next_poll_at: Math.max(now + delay, notBefore) },
  });
}
