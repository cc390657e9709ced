import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { giveUpAt, MAX_REQUEST_MS, MIN_REQUEST_MS, requestTimeout, retryAt } from '../../src/reference-client/deadlines.js';
import type { Route } from '../../src/reference-client/http.js';
import { row } from './helpers.js';

/**
 * How long one answer is waited for. A read must leave room for another before the give-up time (a read held from
 * just after accept to the give-up time was the only one, and a job that ended meanwhile was never seen: seed 12);
 * a create keeps its whole window, since abandoning one makes it ambiguous.
 */
const reads: Route[] = ['status', 'list', 'cancel', 'results'];

describe('requestTimeout', () => {
  it('gives a read at most half the time left before the give-up time, within [MIN, MAX]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 120_000 }),
        fc.integer({ min: 0, max: 130_000 }),
        fc.constantFrom(...reads),
        (deadlineMs, nowMs, route) => {
          const r = row('op', 0, { state: 'observing', result_deadline_at: deadlineMs, create_deadline_at: deadlineMs });
          const t = requestTimeout(r, route, nowMs);
          expect(t).toBeGreaterThanOrEqual(MIN_REQUEST_MS);
          expect(t).toBeLessThanOrEqual(MAX_REQUEST_MS);
          const left = giveUpAt(deadlineMs) - nowMs;
          if (left / 2 >= MIN_REQUEST_MS) expect(t).toBeLessThanOrEqual(left / 2);
          // …and no less than half of it, up to the maximum: a merely slow answer is still waited for.
          expect(t).toBeGreaterThanOrEqual(Math.min(MAX_REQUEST_MS, Math.floor(left / 2)));
        },
      ),
    );
  });

  it('gives a create the whole window up to its create deadline', () => {
    const r = row('op', 0, { state: 'create_pending', create_deadline_at: 3_000, result_deadline_at: 60_000 });
    expect(requestTimeout(r, 'create', 1_000)).toBe(2_000);
    expect(requestTimeout(r, 'create', 2_900)).toBe(MIN_REQUEST_MS);
  });

  it('the read sent just after accept leaves time for a second read before the deadline', () => {
    // The seed-12 schedule: result deadline 1,001 ms, give-up 1,801 ms; the first read is sent at 5 ms.
    const r = row('op', 0, { state: 'accepted', result_deadline_at: 1_001, create_deadline_at: 500 });
    expect(5 + requestTimeout(r, 'status', 5)).toBeLessThan(1_001);
  });
});

describe('retryAt (after a read that taught us nothing)', () => {
  it('past the deadline, spaces the last reads out: +100, +200, +400 ms (eight reads at 100 ms broke I8, seed 13)', () => {
    const d = 10_000;
    const times: number[] = [];
    let t = d;
    while (t + MIN_REQUEST_MS <= giveUpAt(d)) {
      times.push(t - d);
      t = retryAt(t, 5_000, d, 0);
    }
    expect(times).toEqual([0, 100, 200, 400]);
  });

  it('after a timeout (backoff 0) goes at once, past the deadline too: the timeout waited longer than the spacing', () => {
    // A lookup timed out 365 ms past its deadline as its worker resumed; spaced another 365 ms, no room was left for
    // the read that would have found the job (hung-create-paused-lookup).
    const d = 10_000;
    for (const now of [d - 300, d, d + 365, giveUpAt(d) - MIN_REQUEST_MS]) expect(retryAt(now, 0, d, 0)).toBe(now);
    // A Retry-After still holds it back, to the give-up time at most.
    expect(retryAt(d + 100, 0, d, d + 300)).toBe(d + 300);
    expect(retryAt(d + 100, 0, d, d + 5_000)).toBe(giveUpAt(d));
  });

  it('before the deadline, takes the backoff but is there at the deadline; never before a hold, never past the give-up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 1, max: 8_000 }),
        fc.integer({ min: 0, max: 30_000 }),
        (now, backoff, notBefore) => {
          const d = 10_000;
          const t = retryAt(now, backoff, d, notBefore);
          expect(t).toBeGreaterThan(now);
          expect(t).toBeLessThanOrEqual(Math.max(giveUpAt(d), now + 1));
          if (notBefore <= giveUpAt(d)) expect(t).toBeGreaterThanOrEqual(Math.min(notBefore, giveUpAt(d)));
          if (now < d && notBefore <= now) expect(t).toBe(Math.min(now + backoff, d));
        },
      ),
    );
  });
});
