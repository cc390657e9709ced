import { describe, expect, it } from 'vitest';
import {
  calibrateLanes,
  laneStaggerMs,
  MAX_TIME_SCALE,
  MORE_LANES_GAIN,
  pickLanes,
  START_BUDGET_MS,
  type LaneCalibration,
} from '../../../src/conformance/calibrate.js';

// A client command that takes just past what the largest time scale allows to start (and answers nothing).
const slowStartMs = Math.round(START_BUDGET_MS * MAX_TIME_SCALE * 1.05);
const slow = `sh -c 'sleep ${slowStartMs / 1000}' slow-client`;

describe('calibrating the lanes of a catalog run', () => {
  it('keeps the lanes when the machine has room for them', async () => {
    const c = await calibrateLanes(`sh -c ':' quick-client`, 4, 2, 1);
    expect(c.capped).toBe(false);
    expect(c.lanes).toBe(4);
  });

  it('falls back to fewer lanes when that many starts need more stretch than the largest time scale', {
    timeout: 60_000,
  }, async () => {
    const c = await calibrateLanes(slow, 4, 2, 1);
    // Still capped with 2 lanes (the command itself is slow), but measured and run with the fewer lanes.
    expect(c.lanes).toBe(2);
    expect(c.capped).toBe(true);
    expect(c.factor).toBe(MAX_TIME_SCALE);
    expect(c.clientStartMs).toBeGreaterThanOrEqual(slowStartMs);
  });

  it('skips the full calibration of lanes whose first burst is too slow to beat the fewer at 1×', { timeout: 60_000 }, async () => {
    // Every start takes 2× the budget whatever the crowd: 4 lanes at 2× (pace 2) cannot beat 2 lanes at 1× by the margin.
    const twice = `sh -c 'sleep ${(2 * START_BUDGET_MS) / 1000}' steady-client`;
    const c = await calibrateLanes(twice, 4, [2], 2);
    expect(c.lanes).toBe(2);
    expect(c.capped).toBe(false);
    expect(c.factor).toBeGreaterThanOrEqual(2);
  });

  const at = (lanes: number, factor: number, capped = false): LaneCalibration => ({
    lanes,
    factor,
    capped,
    clientStartMs: Math.round(START_BUDGET_MS * factor),
    providerRoundTripMs: 1,
  });

  it('takes more lanes only when, stretched, they still get through clearly sooner than the fewer', () => {
    // 8 lanes at 1.3× pace 6.2 against 4 at 1×: 4.0 — clearly sooner.
    expect(pickLanes(at(8, 1.3), at(4, 1)).lanes).toBe(8);
    // 8 lanes at 2.1× (8 starts at once on 2 cores) against 4 at 1.2×: 3.8 against 3.3, short of the margin.
    expect(pickLanes(at(8, 2.1), at(4, 1.2)).lanes).toBe(4);
    // Exactly the margin is enough; a capped scale never is.
    expect(pickLanes(at(8, 2 / MORE_LANES_GAIN), at(4, 1)).lanes).toBe(8);
    expect(pickLanes(at(8, MAX_TIME_SCALE, true), at(2, MAX_TIME_SCALE)).lanes).toBe(2);
  });

  it("spreads the lanes' first starts over one start budget", () => {
    expect(laneStaggerMs(1)).toBe(0);
    expect(laneStaggerMs(8) * 8).toBeLessThanOrEqual(START_BUDGET_MS);
    expect(laneStaggerMs(8)).toBeGreaterThan(0);
    expect(laneStaggerMs(4)).toBeGreaterThan(laneStaggerMs(8));
  });
});
