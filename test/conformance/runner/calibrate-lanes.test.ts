import { describe, expect, it } from 'vitest';
import { calibrateLanes, MAX_TIME_SCALE, START_BUDGET_MS } from '../../../src/conformance/calibrate.js';

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
});
