import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check, type Verdict } from '../../../src/conformance/checker/index.js';
import { DEFAULT_PLAN, opPlanArb, simulate } from './support/well-behaved.js';

function broken(v: Verdict) {
  return v.invariants.filter((i) => i.status === 'broken').map((i) => `${i.id}: ${i.failures.map((f) => f.explanation).join(' | ')}`);
}

describe('a well-behaved client is never flagged', () => {
  it('the default plan holds everything it can judge', () => {
    const v = check(simulate([DEFAULT_PLAN]));
    expect(broken(v)).toEqual([]);
    expect(v.ok).toBe(true);
  });

  it('property: random correct histories (1–4 operations) give no failure', () => {
    fc.assert(
      fc.property(fc.array(opPlanArb, { minLength: 1, maxLength: 4 }), (plans) => {
        expect(broken(check(simulate(plans)))).toEqual([]);
      }),
      { numRuns: process.env.JOBPROOF_LONG ? 5000 : 400 },
    );
  });
});
