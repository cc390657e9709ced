import { canonicalJson, sha256Hex } from '../../lib/canonical-json.js';
import type { JobRow } from '../store/jobs-repo.js';
import type { BatchRequest } from './store.js';

/**
 * What became of each request of a batch, as a pure function of the job (its state, behaviour and times) and the
 * moment of looking. Both dialects render their counts and result lines from this one function, so a batch reads the
 * same whichever way it is looked at, and a restarted provider serves the same bytes.
 *
 * Requests run in input order: by time t the first k(t) have run (k grows with elapsed time, never reaching all of
 * them before the batch ends, like native progress). Of those that ran, the last `items_failed` of the batch error;
 * a batch whose behaviour fails errors all of them. A cancelled or expired batch keeps the results of the requests
 * that had run; the rest are canceled or expired.
 */
export type LineOutcome = 'processing' | 'succeeded' | 'errored' | 'canceled' | 'expired';

type JobTimes = Pick<JobRow, 'state' | 'behavior' | 'created_at' | 'finished_at'>;

function ranBy(job: JobTimes, n: number, t: number): number {
  const span = Math.max(1, job.behavior.duration_ms);
  const fraction = Math.min(1, Math.max(0, (t - job.created_at) / span));
  return Math.max(0, Math.min(n - 1, Math.floor(n * fraction)));
}

/** How many requests have run (in input order) at `now`. */
export function requestsRun(job: JobTimes, n: number, now: number): number {
  switch (job.state) {
    case 'queued':
      return 0;
    case 'running':
    case 'cancelling':
      return job.behavior.progress_lies ? n : ranBy(job, n, now);
    case 'succeeded':
    case 'failed':
      return n;
    case 'cancelled':
    case 'expired':
      return ranBy(job, n, job.finished_at ?? now);
  }
}

function notRunOutcome(job: JobTimes): LineOutcome {
  return job.state === 'cancelled' ? 'canceled' : job.state === 'expired' ? 'expired' : 'processing';
}

/**
 * The outcome of every request, in input order. `invalid`: 1-based positions of requests that error whenever they run
 * (Anthropic checks a request's params only then).
 */
export function lineOutcomes(job: JobTimes, n: number, now: number, invalid: readonly number[] = []): LineOutcome[] {
  const ran = requestsRun(job, n, now);
  const firstFailed = n - Math.min(job.behavior.items_failed, n) + 1;
  const batchFails = job.behavior.outcome === 'failed';
  const notRun = notRunOutcome(job);
  const bad = new Set(invalid);
  const out: LineOutcome[] = [];
  for (let i = 1; i <= n; i++) {
    if (i > ran) out.push(notRun);
    else out.push(batchFails || i >= firstFailed || bad.has(i) ? 'errored' : 'succeeded');
  }
  return out;
}

export function countOutcomes(outcomes: LineOutcome[]): Record<LineOutcome, number> {
  const counts: Record<LineOutcome, number> = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  for (const o of outcomes) counts[o]++;
  return counts;
}

/** `countOutcomes(lineOutcomes(…))` without walking the requests: what every poll of a batch needs, in O(invalid). */
export function outcomeCounts(job: JobTimes, n: number, now: number, invalid: readonly number[] = []): Record<LineOutcome, number> {
  const counts: Record<LineOutcome, number> = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  const ran = requestsRun(job, n, now);
  counts[notRunOutcome(job)] += n - ran;
  if (job.behavior.outcome === 'failed') {
    counts.errored += ran;
    return counts;
  }
  // Requests 1..ok-1 succeed unless invalid; from firstFailed on they fail.
  const firstFailed = n - Math.min(job.behavior.items_failed, n) + 1;
  const okRan = Math.max(0, Math.min(ran, firstFailed - 1));
  const invalidOk = new Set(invalid.filter((i) => i >= 1 && i <= okRan)).size;
  counts.succeeded += okRan - invalidOk;
  counts.errored += ran - okRan + invalidOk;
  return counts;
}

/** A stable digest of one input line: the same `custom_id` and body give the same answer in any batch. */
export function lineDigest(r: BatchRequest): string {
  return sha256Hex(`${r.custom_id}\n${canonicalJson(r.body)}`);
}

/**
 * Result files list lines in no promised order (both APIs say so), so the fake shuffles them, deterministically per
 * batch: a client that pairs results with requests by position instead of by `custom_id` is caught.
 */
export function resultOrder(batchId: string, requests: BatchRequest[]): number[] {
  return requests
    .map((r, i) => ({ i, k: sha256Hex(`${batchId}:${r.custom_id}:${i}`) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map((x) => x.i);
}

/** Unix seconds, as OpenAI writes times. */
export function unixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}
