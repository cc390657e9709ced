import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runTaskScenario, type TaskScenarioInput } from '../../../src/conformance/tasks/index.js';
import { referenceFactory } from './helpers.js';

type Step = NonNullable<TaskScenarioInput['steps']>[number];

const review = (at_ms: number, decision: 'approve' | 'revoke' | 'reject'): Step => ({
  at_ms,
  action: { type: 'review', decision, op: 'op-1', expect_status: 'any' },
});

/** One episode of the schedule: one or two harness steps (an approval revoked shortly after is one episode). */
const episode: fc.Arbitrary<Step[]> = fc
  .tuple(
    fc.integer({ min: 0, max: 40 }),
    fc.constantFrom('approve', 'approve', 'approve-revoke', 'revoke', 'edit', 'approve-edit', 'reject', 'unrole'),
  )
  .map(([t, kind]): Step[] => {
    const at_ms = 300 + t * 500;
    if (kind === 'edit') return [{ at_ms, action: { type: 'edit_object', ref: 'invoice-1', data: { amount: t, status: 'open' } } }];
    if (kind === 'approve-edit')
      return [
        review(at_ms, 'approve'),
        { at_ms: at_ms + 200, action: { type: 'edit_object', ref: 'invoice-1', data: { amount: t + 1000, status: 'open' } } },
      ];
    if (kind === 'approve-revoke') return [review(at_ms, 'approve'), review(at_ms + 200, 'revoke')];
    // The approver loses the reviewer role (it gets it back at 24 s).
    if (kind === 'unrole')
      return [
        { at_ms, action: { type: 'set_principals', tokens: { 'reviewer-token': { tenant: 'acme', subject: 'reviewer-1', roles: [] } } } },
      ];
    return [review(at_ms, kind as 'approve' | 'revoke' | 'reject')];
  });
const schedule = (min: number, max: number) => fc.array(episode, { minLength: min, maxLength: max }).map((es) => es.flat());

const lost = fc.constantFrom(
  [] as TaskScenarioInput['faults'],
  [{ on: 'apply' as const, nth: 1, fault: { type: 'lose_response' as const } }],
  [{ on: 'apply' as const, nth: [1, 2], fault: { type: 'lose_response' as const } }],
  [{ on: 'apply' as const, nth: 1, fault: { type: 'error_after_commit' as const } }],
  [{ on: 'apply' as const, nth: 1, fault: { type: 'delay' as const, ms: 1500 } }],
  [
    { on: 'task_create' as const, nth: 1, fault: { type: 'lose_response' as const } },
    { on: 'apply' as const, nth: 2, fault: { type: 'lose_response' as const } },
  ],
  [{ on: 'task_read' as const, probability: 0.3, fault: { type: 'fail_before_commit' as const, status: 503 as const } }],
);

describe('property: random review / revoke / edit / role / lost-answer schedules', () => {
  it('the reference task client never breaks T1–T5, and ends where the provider says', async () => {
    await fc.assert(
      fc.asyncProperty(schedule(0, 8), lost, fc.integer({ min: 1, max: 1000 }), async (steps, faults, seed) => {
        const restore: Step = {
          at_ms: 24_000,
          action: { type: 'set_principals', tokens: { 'reviewer-token': { tenant: 'acme', subject: 'reviewer-1', roles: ['reviewer'] } } },
        };
        const late: Step[] = [restore, 25_000, 32_000, 40_000].map((x) =>
          typeof x === 'number' ? { at_ms: x, action: { type: 'review', decision: 'approve', op: 'op-1', expect_status: 'any' } } : x,
        );
        const sc: TaskScenarioInput = {
          name: 'random-schedule',
          description: 'generated',
          seed,
          objects: [{ ref: 'invoice-1', data: { amount: 1, status: 'open' } }],
          ops: [{ task_op_id: 'op-1', object_ref: 'invoice-1', input: { changes: { status: 'paid' } } }],
          faults,
          steps: [...steps, ...late],
          limit_ms: 60_000,
        };
        const run = await runTaskScenario(sc, referenceFactory());
        expect(
          run.verdict.failed,
          JSON.stringify({ steps, faults, v: run.verdict.failed.map((f) => run.verdict.results[f].violations) }),
        ).toEqual([]);
        expect(run.finished).toBe(true);
        const [r] = run.reports;
        const t = run.evidence.provider.tasks[0]!;
        // Not rejected: the late approvals get it applied; rejected: it says so.
        expect(r!.state).toBe(t.state === 'applied' ? 'applied' : t.state);
      }),
      { numRuns: 30, seed: 20260601 },
    );
    // 30 whole task runs on the virtual clock: CPU only, ~15 s on a quiet 2-core machine, twice that beside other runs.
  }, 120_000);
});

describe('property: not vacuous', () => {
  it('the same kind of schedules catch a client that takes any review (even a revoked one) as an approval', async () => {
    const { BROKEN } = await import('./helpers.js');
    const out = await fc.check(
      fc.asyncProperty(schedule(2, 8), async (steps) => {
        const sc: TaskScenarioInput = {
          name: 'random-schedule',
          description: 'generated',
          objects: [{ ref: 'invoice-1', data: { amount: 1, status: 'open' } }],
          ops: [{ task_op_id: 'op-1', object_ref: 'invoice-1', input: { changes: { status: 'paid' } } }],
          steps: [...steps, { at_ms: 25_000, action: { type: 'review', decision: 'approve', op: 'op-1', expect_status: 'any' } }],
          limit_ms: 40_000,
        };
        const run = await runTaskScenario(sc, referenceFactory({ policy: BROKEN['any-review-counts']!.policy() }));
        return run.verdict.ok;
      }),
      { numRuns: 40, seed: 7, endOnFailure: true },
    );
    expect(out.failed).toBe(true);
  });
});
