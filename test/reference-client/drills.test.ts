import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookEntry } from '../../src/contract/journal.js';
import { bench, jobsCreatedFor, op, type Bench } from './harness.js';

/** The five drills of conformance.md, in-process on a virtual clock (crash and stale lease are in drills-workers). */
describe('drills', () => {
  let b: Bench;
  afterEach(() => b?.close());

  it('lost-create-response: one job, one key, result not lost', async () => {
    b = bench({
      behavior: { duration_ms: 2000 },
      faults: { rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] },
    });
    const c = b.client();
    await c.submit(op('op_l'));
    await b.work(c);
    const rec = await c.show('op_l');
    expect(rec.state).toBe('succeeded');
    expect(jobsCreatedFor(b, 'op_l')).toEqual([rec.remote_job_id]);
    const creates = b.requests().filter((e) => e.route === 'create');
    expect(creates.length).toBeGreaterThanOrEqual(2);
    expect(new Set(creates.map((e) => e.idempotency_key))).toEqual(new Set([rec.idempotency_key]));
    expect(rec.history.map((h) => h.to)).toContain('create_unknown');
    expect(rec.history.map((h) => h.to)).toContain('reconciliation');
    expect(rec.result!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('error-after-commit and create-hang also end with one job', async () => {
    for (const fault of [{ type: 'error_after_commit' as const }, { type: 'lose_response' as const, mode: 'hang' as const }]) {
      b = bench({ faults: { rules: [{ on: 'create', nth: 1, fault }] } });
      const c = b.client();
      await c.submit(op('op_h'));
      await b.work(c);
      expect((await c.show('op_h')).state).toBe('succeeded');
      expect(jobsCreatedFor(b, 'op_h')).toHaveLength(1);
      b.close();
    }
  });

  it('foreign-job-id: a replay naming another job ends needs_attention with both ids and no further calls', async () => {
    b = bench({
      faults: {
        rules: [
          { on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } },
          { on: 'create', nth: 2, fault: { type: 'foreign_job_id' } },
        ],
      },
    });
    const c = b.client();
    await c.submit(op('op_f'));
    await b.work(c);
    const rec = await c.show('op_f');
    expect(rec.state).toBe('needs_attention');
    const real = jobsCreatedFor(b, 'op_f')[0];
    // The journal files a foreign replay under the job the key really created; the foreign id is what we were told.
    expect(rec.remote_job_id).toBe(real);
    expect(rec.conflicting_job_id).toMatch(/^job_/);
    expect(rec.conflicting_job_id).not.toBe(real);
    const last = rec.history[rec.history.length - 1]!;
    expect(last).toMatchObject({ to: 'needs_attention', evidence: { job_id: real, other_job_id: rec.conflicting_job_id } });
    const foreignSeq = b.requests().find((e) => e.effect === 'foreign_replay')!.seq;
    expect(b.requests().filter((e) => e.seq > foreignSeq)).toEqual([]);
  });

  for (const [name, commitPoint, expected] of [
    ['cancel-race lost: the job passed its commit point', 0.5, 'succeeded'],
    ['cancel-race won: cancelled only when the provider says so', 0.9, 'cancelled'],
  ] as const) {
    it(name, async () => {
      b = bench({ behavior: { duration_ms: 10_000, commit_point: commitPoint, cancel_ms: 500 } });
      const c = b.client();
      await c.submit(op('op_c'));
      const t0 = b.clock.now();
      const done = c.work({ signal: new AbortController().signal });
      await b.clock.advanceTo(t0 + 6_000);
      await c.cancel('op_c', { actor: 'alice', reason: 'changed my mind', cancel_deadline_ms: 60_000 });
      const { drive } = await import('./helpers.js');
      await drive(b.clock, done);
      const rec = await c.show('op_c');
      expect(rec.state).toBe(expected);
      const cancels = b.requests().filter((e) => e.route === 'cancel');
      expect(cancels).toHaveLength(1);
      expect(rec.history.map((h) => h.to)).toEqual(
        expected === 'succeeded'
          ? ['create_pending', 'accepted', 'observing', 'cancel_requested', 'cancelling', 'result_collecting', 'succeeded']
          : ['create_pending', 'accepted', 'observing', 'cancel_requested', 'cancelling', 'cancelled'],
      );
      if (expected === 'succeeded') expect(b.requests().filter((e) => e.route === 'results' && e.status === 200)).toHaveLength(1);
    });
  }

  it('cancel before any create: cancelled without a single request', async () => {
    b = bench();
    const c = b.client();
    await c.submit(op('op_0'));
    await c.cancel('op_0', { actor: 'bob', reason: 'oops', cancel_deadline_ms: 1000 });
    await b.work(c);
    expect((await c.show('op_0')).state).toBe('cancelled');
    expect(b.requests()).toEqual([]);
  });

  it('cancel after an ambiguous create: finds the job first, then cancels it', async () => {
    b = bench({
      behavior: { duration_ms: 30_000 },
      faults: { rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] },
    });
    const c = b.client();
    await c.submit(op('op_a'));
    const done = c.work({ signal: new AbortController().signal });
    // Let the first (lost) create go out, then cancel before reconciliation runs.
    for (let i = 0; i < 50 && !b.requests().some((e) => e.route === 'create'); i++) await b.clock.step();
    await c.cancel('op_a', { actor: 'carol', reason: 'stop', cancel_deadline_ms: 60_000 });
    const { drive } = await import('./helpers.js');
    await drive(b.clock, done);
    const rec = await c.show('op_a');
    expect(rec.state).toBe('cancelled');
    const routes = b.requests().map((e) => e.route);
    expect(routes.filter((r) => r === 'create')).toHaveLength(1);
    expect(routes.indexOf('list')).toBeLessThan(routes.indexOf('cancel'));
    expect(routes.filter((r) => r === 'cancel')).toHaveLength(1);
  });

  it('duplicate-webhook: duplicates change nothing; results fetched once; a status read before the final state', async () => {
    b = bench({
      webhooks: true,
      behavior: { duration_ms: 20_000 },
      faults: { rules: [{ on: 'webhook', fault: { type: 'duplicate', copies: 1 } }] },
    });
    const c = b.client();
    await c.submit(op('op_w'));
    await b.work(c);
    const rec = await c.show('op_w');
    expect(rec.state).toBe('succeeded');
    const hooks = b.provider.journal.all().filter((e): e is WebhookEntry => e.type === 'webhook' && e.outcome === 'delivered');
    const ids = hooks.map((h) => h.event_id);
    expect(ids.length).toBeGreaterThan(new Set(ids).size); // duplicates really were delivered
    expect(b.requests().filter((e) => e.route === 'results')).toHaveLength(1);
    const reads = b.requests().filter((e) => e.route === 'status' && e.job_state === 'succeeded');
    expect(reads.length).toBeGreaterThanOrEqual(1);
    // The webhook made the client read promptly: it finished well before a plain poll schedule would have.
    const succeededAt = Date.parse(b.provider.journal.all().find((e) => e.type === 'transition' && e.to === 'succeeded')!.at);
    expect(Date.parse(reads[0]!.at) - succeededAt).toBeLessThan(100);
  });
});
