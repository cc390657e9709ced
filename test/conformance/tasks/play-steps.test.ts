/**
 * `playSteps` (the process runner's step clock): steps run in the order they come due, and two steps of one moment in
 * the order the scenario lists them — even when the wall clock moves on between them, which is what a busy machine
 * does (a timer per step let a revoke fire before its approval there).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { playSteps } from '../../../src/conformance/tasks/process-runner.js';

describe('playSteps', () => {
  it('runs steps by due time, same-moment steps in listed order, whatever the clock did meanwhile', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }), async (ats) => {
        const steps = ats.map((at_ms, i) => ({ at_ms, action: i }));
        const order: number[] = [];
        // t0 in the past: every step is already due, as after a stall; each run also burns a millisecond.
        await playSteps(steps, Date.now() - 10, async (i) => {
          order.push(i);
          const until = Date.now() + 1;
          while (Date.now() < until);
        });
        const expected = [...steps].sort((a, b) => a.at_ms - b.at_ms || a.action - b.action).map((s) => s.action);
        expect(order).toEqual(expected);
      }),
      { numRuns: 30 },
    );
  });

  it('waits for a step that is not due yet and starts the next one only after it', async () => {
    const seen: string[] = [];
    const t0 = Date.now();
    let firstDone = false;
    await playSteps(
      [
        { at_ms: 30, action: 'late' },
        { at_ms: 0, action: 'now' },
      ],
      t0,
      async (a) => {
        seen.push(`${a}@${a === 'late' ? (Date.now() - t0 >= 30 ? 'due' : 'early') : 'due'}`);
        if (a === 'now') firstDone = true;
        else expect(firstDone).toBe(true);
      },
    );
    expect(seen).toEqual(['now@due', 'late@due']);
  });
});
