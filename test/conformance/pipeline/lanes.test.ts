import { describe, expect, it } from 'vitest';
import { runInLanes } from '../../../src/conformance/pipeline/lanes.js';

describe('runInLanes', () => {
  it("starts lane k k × staggerMs after the first, in the order given, and returns results in the items' order", async () => {
    const t0 = performance.now();
    const started: Array<{ item: number; at: number }> = [];
    // Every run is held until the three lanes have each taken one: no lane can take a second item before then.
    let release!: () => void;
    const allStarted = new Promise<void>((r) => (release = r));
    const driver = {
      kind: 'process' as const,
      run: async (n: number) => {
        if (started.length >= 3) release();
        await allStarted;
        return n * 10;
      },
    };
    const results = await runInLanes([0, 1, 2, 3], driver, {
      lanes: 3,
      order: [3, 2, 1, 0],
      staggerMs: 40,
      onStart: (item) => started.push({ item, at: performance.now() - t0 }),
    });
    expect(results).toEqual([0, 10, 20, 30]);
    expect(started.map((s) => s.item)).toEqual([3, 2, 1, 0]);
    expect(started[1]!.at).toBeGreaterThanOrEqual(39);
    expect(started[2]!.at).toBeGreaterThanOrEqual(79);
  });
});
