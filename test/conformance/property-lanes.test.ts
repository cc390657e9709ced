import { describe, expect, it } from 'vitest';
import type * as Lanes from '../../src/conformance/property-lanes.js';
import { laneShard, mergeLanes } from '../../src/conformance/property-lanes.js';
import type { PropertyRunResult } from '../../src/conformance/property-run.js';

// Lanes run on worker threads, which load compiled JavaScript: these tests use dist/ (npm run build first), as the
// CLI tests do, and a mutant written as a JavaScript module (a worker imports its factory by name).
const dist = (p: string) => new URL(`../../dist/${p}`, import.meta.url).href;
const { propertyRunLanes } = (await import(dist('conformance/property-lanes.js'))) as typeof Lanes;
const reference = { module: dist('reference-client/index.js'), name: 'createInMemoryReferenceClient' };
const mutant = { module: new URL('./mutants/lane-mutant.mjs', import.meta.url).href, name: 'newKeyOnRetry' };

/** What a certification reports of a property run (wall time aside). */
function verdictOf(r: PropertyRunResult) {
  return {
    runs: r.runs,
    planned: r.planned,
    executed: r.executed,
    failed: r.failed,
    verdicts: r.verdicts,
    failedAt: r.failedAt,
    path: r.path,
    numShrinks: r.numShrinks,
    minimal: r.counterexample?.scenario,
    outcome: r.counterexample?.run.outcome,
  };
}

describe('property lanes (random schedules on worker threads)', () => {
  it('lane j of m inside shard i/n takes every (n·m)-th position, and the lanes of a shard make up the shard', () => {
    expect([0, 1, 2].map((j) => laneShard(j, 3, undefined))).toEqual([
      { index: 1, count: 3 },
      { index: 2, count: 3 },
      { index: 3, count: 3 },
    ]);
    // Shard 2/4 holds positions 1, 5, 9, 13…; its two lanes take 1, 9, 17… and 5, 13, 21….
    expect([0, 1].map((j) => laneShard(j, 2, { index: 2, count: 4 }))).toEqual([
      { index: 2, count: 8 },
      { index: 6, count: 8 },
    ]);
  });

  it('counts a failure as one thread would: every position up to the first failing one, and only its shrink', () => {
    const base = { seed: 1, failed: false, verdicts: {}, wallMs: 0, runs: 10 } satisfies PropertyRunResult;
    const run = (verdict: 'pass' | 'fail', position?: number) => ({ verdict, position });
    const merged = mergeLanes(
      [
        // Fails at 4 (later than the other lane): its runs past 3 and its shrink are not what one thread would run.
        { result: { ...base, failed: true, failedAt: 4, runs: 5 }, runs: [run('pass', 0), run('pass', 2), run('fail', 4), run('fail')] },
        {
          result: { ...base, failed: true, failedAt: 3, runs: 4, counterexample: {} as never, path: '3:0', numShrinks: 1 },
          runs: [run('pass', 1), run('fail', 3), run('pass'), run('fail')],
        },
      ],
      10,
    );
    // Positions 0–3 (pass, pass, pass, fail) and the winning lane's two shrink candidates (pass, fail).
    expect(merged.verdicts).toEqual({ pass: 4, fail: 2 });
    expect(merged.executed).toBe(6);
    expect([merged.failedAt, merged.path, merged.runs, merged.planned]).toEqual([3, '3:0', 4, 10]);
  });

  it('gives the reference client the same verdicts on 3 lanes as on one', { timeout: 240_000 }, async () => {
    const one = await propertyRunLanes(reference, { runs: 24, seed: 4242, lanes: 1 });
    const three = await propertyRunLanes(reference, { runs: 24, seed: 4242, lanes: 3 });
    expect(one.failed).toBe(false);
    expect(verdictOf(three)).toEqual(verdictOf(one));
  });

  it('shrinks a mutant failure found in the second lane to the same minimal schedule and path as one thread', {
    timeout: 300_000,
  }, async () => {
    // Seed 60: position 0 passes, position 1 (lane 2 of 2, and of 3) is the first failure.
    const one = await propertyRunLanes(mutant, { runs: 30, seed: 60, lanes: 1 });
    expect(one.failed).toBe(true);
    expect(one.failedAt).toBe(1);
    expect(one.counterexample?.run.verdict.invariants.find((i) => i.id === 'I2')?.status).toBe('broken');
    for (const lanes of [2, 3]) expect(verdictOf(await propertyRunLanes(mutant, { runs: 30, seed: 60, lanes }))).toEqual(verdictOf(one));
  });
});
