import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HarnessEvent } from '../../../src/conformance/checker/evidence.js';
import { runningFor } from '../../../src/conformance/checker/worker-presence.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (t: number) => new Date(T0 + t).toISOString();
const PROVIDER_EVENTS: ReadonlySet<string> = new Set(['provider_restart', 'provider_up']);
const ev = (t: number, type: HarnessEvent['type'], worker_id: string): HarnessEvent =>
  PROVIDER_EVENTS.has(type) ? { at: at(t), type } : { at: at(t), type, worker_id };

/**
 * The model: walk the run a millisecond at a time, counting the milliseconds in which some worker ran while no owner
 * of the operation lay killed or paused with its lease still running.
 */
function modelRunningFor(
  events: Array<[number, HarnessEvent['type'], string]>,
  t: number,
  runMs: number,
  owners: Set<string>,
  horizon: number,
  needsProvider = false,
): number {
  let counted = 0;
  // Without worker events a worker always runs (hand-built evidence).
  const always = events.every(([, type]) => type === 'lease_expired' || type === 'exit' || PROVIDER_EVENTS.has(type));
  const sorted = [...(always ? [[-1, 'start', '(always)'] as const] : []), ...events].sort((a, b) => a[0] - b[0]);
  for (let m = t; m < horizon; m++) {
    const running = new Set<string>();
    const holding = new Set<string>();
    let down = false;
    for (const [et, type, w] of sorted) {
      if (et > m) break;
      if (PROVIDER_EVENTS.has(type)) down = needsProvider && type === 'provider_restart';
      else if (type === 'start' || type === 'resume') {
        running.add(w);
        holding.delete(w);
      } else if (type === 'lease_expired') holding.delete(w);
      else if (type !== 'exit') {
        // A worker that exits by itself gave its time away: it still counts as there.
        running.delete(w);
        if (owners.has(w)) holding.add(w);
      }
    }
    const free = running.size > 0 && holding.size === 0 && !down;
    // A zero grace: the first moment a worker may act.
    if (free && runMs === 0) return m;
    if (free && ++counted === runMs) return m + 1;
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

  it("does not count the time a killed owner's lease still runs: killed 1 ms before the deadline, lease 1,002 ms (seed 17)", () => {
    const h = [ev(0, 'start', 'worker-1'), ev(0, 'start', 'worker-2'), ev(2445, 'kill', 'worker-2'), ev(3447, 'lease_expired', 'worker-2')];
    expect(runningFor(h, T0 + 2446, 1000, new Set(['worker-2']))).toBe(T0 + 3447 + 1000);
    // A worker that never touched the operation holds nothing of it.
    expect(runningFor(h, T0 + 2446, 1000, new Set(['worker-1']))).toBe(T0 + 3446);
  });

  it('does not count the time the provider is down when acting needs it (provider down 524–1000 ms: seed 19)', () => {
    const h = [ev(0, 'start', 'worker-1'), ev(524, 'provider_restart', ''), ev(1000, 'provider_up', '')];
    expect(runningFor(h, T0, 1000, new Set(), { needsProvider: true })).toBe(T0 + 1000 + 476);
    expect(runningFor(h, T0, 1000)).toBe(T0 + 1000);
  });

  it('agrees with a millisecond-by-millisecond model for any harness of two workers and a provider', () => {
    const eventArb = fc.tuple(
      fc.integer({ min: 0, max: 300 }),
      fc.constantFrom(
        'start' as const,
        'kill' as const,
        'pause' as const,
        'resume' as const,
        'exit' as const,
        'lease_expired' as const,
        'provider_restart' as const,
        'provider_up' as const,
      ),
      fc.constantFrom('w1', 'w2'),
    );
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 8 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 200 }),
        fc.subarray(['w1', 'w2']),
        fc.boolean(),
        (events, t, runMs, ownerList, needsProvider) => {
          const harness = events.map(([et, type, w]) => ev(et, type, w));
          const owners = new Set(ownerList);
          const got = runningFor(harness, T0 + t, runMs, owners, { needsProvider });
          const model = modelRunningFor(events, t, runMs, owners, 1_000, needsProvider);
          expect(got === Infinity ? Infinity : got - T0).toBe(model);
        },
      ),
      { numRuns: 300 },
    );
  });
});
