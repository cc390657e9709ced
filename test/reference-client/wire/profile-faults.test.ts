import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/provider-server.js';
import { op, PROFILES, profileOf, startProfileRig, workOut, type ProfileRig } from './profile-rig.js';

/**
 * Random request faults on every route a profile client uses (lost answers, failures before and after the commit,
 * rate limits), over real HTTP: whatever the faults, each operation makes at most one job and ends with the results
 * the provider made, verified — the durable machinery is the same through the profile adapter as through native.
 */
const Rule = fc.record({
  on: fc.constantFrom('create', 'status', 'list', 'results'),
  times: fc.integer({ min: 1, max: 2 }),
  fault: fc.oneof(
    fc.constant({ type: 'lose_response', mode: 'reset' }),
    fc.constant({ type: 'fail_before_commit', status: 503 }),
    fc.constant({ type: 'error_after_commit' }),
    fc.record({ type: fc.constant('rate_limit'), retry_after: fc.integer({ min: 0, max: 1 }) }),
  ),
});

let rig: ProfileRig;
beforeAll(async () => {
  rig = await startProfileRig();
  await rig.behave({ duration_ms: 200, items: 3, items_failed: 1 });
});
afterAll(() => rig.close());

describe.each(PROFILES)('profile %s under random faults', (nameOrFile) => {
  const p = profileOf(nameOrFile);
  let n = 0;
  it('one job at most, and its results verified', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(Rule, { minLength: 1, maxLength: 3 }), async (rules) => {
        await rig.faults(rules);
        const c = rig.client(p);
        const id = `${p.name}-f${++n}`;
        await c.submit(op(p, id));
        await workOut(c);
        await rig.faults([]);
        const rec = await c.show(id);
        const mine = rig.requests(p).filter((e) => e.trace_id === rec.trace_id);
        const made = mine.filter((e) => e.route === 'create' && (e.effect === 'created' || (e.job_id !== null && e.effect !== 'replayed')));
        expect(new Set(made.map((e) => e.job_id)).size, JSON.stringify(rules)).toBeLessThanOrEqual(1);
        expect(rec.state, `${JSON.stringify(rules)} ${JSON.stringify(rec.history.map((h) => [h.to, h.cause]))}`).toBe('succeeded');
        const job = rig.server.provider.core.jobs.get(rec.remote_job_id!);
        expect(rec.result?.sha256).toBe(job?.result?.sha256);
      }),
      { numRuns: 4, seed: 21 },
    );
  });

  it('a cancel under faults ends cancelled only when the API cancelled the job', { timeout: 120_000 }, async () => {
    const CancelRule = fc.record({
      on: fc.constantFrom('cancel', 'status'),
      times: fc.integer({ min: 1, max: 2 }),
      fault: Rule.map((r) => r.fault),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(CancelRule, { minLength: 1, maxLength: 2 }), async (rules) => {
        await rig.behave({ duration_ms: 20_000, items: 3 });
        const c = rig.client(p);
        const id = `${p.name}-c${++n}`;
        await c.submit(op(p, id));
        const done = workOut(c);
        await waitFor(async () => ['accepted', 'observing'].includes((await c.show(id)).state), 15_000);
        await rig.faults(rules);
        await c.cancel(id, { actor: 'test', reason: 'stop', cancel_deadline_ms: 10_000 });
        await done;
        await rig.faults([]);
        await rig.behave({ duration_ms: 200, items: 3, items_failed: 1 });
        const rec = await c.show(id);
        const job = rig.server.provider.core.jobs.get(rec.remote_job_id!);
        expect(['cancelled', 'cancellation_unconfirmed'], JSON.stringify(rules)).toContain(rec.state);
        if (rec.state === 'cancelled') expect(job?.state).toBe('cancelled');
      }),
      { numRuns: 3, seed: 21 },
    );
  });
});
