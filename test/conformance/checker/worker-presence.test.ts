import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../../src/conformance/checker/evidence.js';
import { runningFor } from '../../../src/conformance/checker/worker-presence.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (t: number) => new Date(T0 + t).toISOString();
const ev = (t: number, type: HarnessEvent['type'], worker_id: string): HarnessEvent => ({ at: at(t), type, worker_id });

/** The model: walk the run a millisecond at a time, counting the milliseconds in which some worker ran. */
function modelRunningFor(events: Array<[number, HarnessEvent['type'], string]>, t: number, runMs: number, horizon: number): number {
  let counted = 0;
  for (let m = t; m < horizon; m++) {
    const running = new Set<string>();
    for (const [et, type, w] of [...events].sort((a, b) => a[0] - b[0])) {
      if (et > m) break;
      if (type === 'start' || type === 'resume') running.add(w);
      else if (type !== 'lease_expired') running.delete(w);
    }
    // A zero grace: the first moment a worker runs.
    if (running.size > 0 && runMs === 0) return m;
    if (running.size > 0 && ++counted === runMs) return m + 1;
  }
  return Infinity;
}

describe('runningFor (the time a client was given to act)', () => {
  it('is t + runMs without harness events (hand-built evidence)', () => {
    expect(runningFor([], T0 + 5, 100)).toBe(T0 + 105);
  });

  it('stops counting while the only worker is paused: 190 ms run, paused past the deadline (in-process seed 7)', () => {
    const h = [ev(0, 'start', 'worker-1'), ev(190, 'pause', 'worker-1'), ev(1551, 'resume', 'worker-1')];
    expect(runningFor(h, T0, 1000)).toBe(T0 + 1551 + 810);
    expect(runningFor(h, T0, 100)).toBe(T0 + 100);
  });

  it('is Infinity when every worker stays killed', () => {
    expect(runningFor([ev(0, 'start', 'w'), ev(50, 'kill', 'w')], T0 + 10, 100)).toBe(Infinity);
  });

  it('agrees with a millisecond-by-millisecond model for any harness of two workers', () => {
    const eventArb = fc.tuple(
      fc.integer({ min: 0, max: 300 }),
      fc.constantFrom('start' as const, 'kill' as const, 'pause' as const, 'resume' as const, 'exit' as const, 'lease_expired' as const),
      fc.constantFrom('w1', 'w2'),
    );
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 8 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 200 }),
        (events, t, runMs) => {
          const harness = events.map(([et, type, w]) => ev(et, type, w));
          const got = runningFor(harness, T0 + t, runMs);
          // Without worker events the function assumes a worker always runs; the model needs them to say so.
          const none = events.every(([, type]) => type === 'lease_expired');
          const model = none ? t + runMs : modelRunningFor(events, t, runMs, 1_000);
          expect(got === Infinity ? Infinity : got - T0).toBe(model);
        },
      ),
      { numRuns: 300 },
    );
  });
});
