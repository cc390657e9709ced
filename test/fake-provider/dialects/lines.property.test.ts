/**
 * The per-request outcome function both dialects render from (src/fake-provider/dialects/lines.ts): the O(1) counts
 * every poll uses equal the per-line outcomes results are rendered from, always sum to the batch size, and never go
 * backwards as time passes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countOutcomes, lineOutcomes, outcomeCounts, requestsRun } from '../../../src/fake-provider/dialects/lines.js';
import { BehaviorSchema, JOB_STATES } from '../../../src/contract/index.js';

const jobArb = fc
  .record({
    state: fc.constantFrom(...JOB_STATES),
    duration_ms: fc.integer({ min: 0, max: 10_000 }),
    items_failed: fc.integer({ min: 0, max: 60 }),
    outcome: fc.constantFrom('succeeded', 'failed', 'expired', 'never' as const),
    progress_lies: fc.boolean(),
    finishedAfter: fc.integer({ min: 0, max: 12_000 }),
  })
  .map((j) => ({
    state: j.state,
    behavior: BehaviorSchema.parse({
      items: 100,
      duration_ms: j.duration_ms,
      items_failed: j.items_failed,
      outcome: j.outcome,
      progress_lies: j.progress_lies,
    }),
    created_at: 1_000_000,
    finished_at: 1_000_000 + j.finishedAfter,
  }));

describe('batch request outcomes', () => {
  it('outcomeCounts equals counting lineOutcomes, and sums to n', () => {
    fc.assert(
      fc.property(
        jobArb,
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 50 }), { maxLength: 10 }),
        (job, n, t, invalid) => {
          const now = job.created_at + t;
          const counts = outcomeCounts(job, n, now, invalid);
          expect(counts).toEqual(countOutcomes(lineOutcomes(job, n, now, invalid)));
          expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(n);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a running batch never reports fewer requests done later than earlier, nor all of them unless progress lies', () => {
    fc.assert(
      fc.property(
        jobArb,
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.integer({ min: 0, max: 12_000 }),
        (job, n, a, b) => {
          const running = { ...job, state: 'running' as const };
          const [t1, t2] = [Math.min(a, b), Math.max(a, b)];
          expect(requestsRun(running, n, job.created_at + t1)).toBeLessThanOrEqual(requestsRun(running, n, job.created_at + t2));
          if (!job.behavior.progress_lies) expect(requestsRun(running, n, job.created_at + t2)).toBeLessThan(n);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an ended batch has nothing processing; a succeeded one ran every request', () => {
    fc.assert(
      fc.property(jobArb, fc.integer({ min: 0, max: 50 }), (job, n) => {
        const ended = ['succeeded', 'failed', 'cancelled', 'expired'].includes(job.state);
        const c = outcomeCounts(job, n, job.created_at + 20_000);
        if (ended) expect(c.processing).toBe(0);
        if (job.state === 'succeeded') expect(c.canceled + c.expired + c.processing).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
