import { afterEach, describe, expect, it } from 'vitest';
import { SqliteOperationStore } from '../../src/reference-client/store/sqlite-store.js';
import { bench, crashable, jobsCreatedFor, op, Pausable, type Bench } from './harness.js';
import { drive } from './helpers.js';

/** The drills that need more than one worker: a crash right after the job id, and a stale lease. */
describe('drills with several workers', () => {
  let b: Bench;
  afterEach(() => b?.close());

  for (const when of ['before the job id was recorded', 'after the job id was recorded, before the first poll'] as const) {
    it(`crash-after-job-id (${when}): a new worker finishes with one job and the result`, async () => {
      b = bench({ leaseMs: 3000, behavior: { duration_ms: 5000 } });
      const store = crashable(SqliteOperationStore.open(b.dir));
      const killAt = when.startsWith('before') ? 'create' : 'status';
      const w1 = b.client('worker-1', {
        store,
        fetch: async (input, init) => {
          const isStatus = init?.method !== 'POST' && /\/v1\/jobs\/job_[^/]+$/.test(String(input));
          if (killAt === 'status' && isStatus) {
            store.crash();
            return new Promise<Response>(() => undefined); // the process is gone: no answer will be read
          }
          const res = await b.provider.fetch(input, init);
          if (killAt === 'create' && init?.method === 'POST') store.crash();
          return res;
        },
      });
      await w1.submit(op('op_k'));
      const dead = w1.work({ signal: new AbortController().signal }).catch((e: Error) => e);
      for (let i = 0; i < 200 && !b.requests().some((e) => e.route === (killAt === 'create' ? 'create' : 'status')); i++)
        await b.clock.step();
      if (killAt === 'status') await b.clock.step();
      const w2 = b.client('worker-2');
      await drive(b.clock, w2.work({ signal: new AbortController().signal }));
      expect(await dead).toBeInstanceOf(Error);
      const rec = await w2.show('op_k');
      expect(rec.state).toBe('succeeded');
      expect(jobsCreatedFor(b, 'op_k')).toEqual([rec.remote_job_id]);
      const after = b.requests().filter((e) => e.worker_id === 'worker-2');
      if (killAt === 'create')
        expect(after[0]).toMatchObject({ route: 'create', effect: 'replayed', idempotency_key: rec.idempotency_key });
      else expect(after.some((e) => e.route === 'create')).toBe(false);
      expect(b.requests().filter((e) => e.route === 'results' && e.status === 200)).toHaveLength(1);
    });
  }

  it('stale-lease: a worker paused past its lease sends nothing and writes nothing after it resumes; one cancel in all', async () => {
    b = bench({ leaseMs: 2000, behavior: { duration_ms: 30_000, commit_point: 0.9 } });
    const p = new Pausable(b.clock);
    let statusReads = 0;
    const w1 = b.client('worker-1', {
      clock: p.clock,
      fetch: p.fetch(b.provider.fetch, (url) => {
        if (/\/v1\/jobs\/job_[^/?]+$/.test(url) && ++statusReads === 2) p.pause();
      }),
    });
    await w1.submit(op('op_p'));
    const run1 = w1.work({ signal: new AbortController().signal });
    for (let i = 0; i < 500 && statusReads < 2; i++) await b.clock.step();
    const pausedAtSeq = b.provider.journal.lastSeq();

    const w2 = b.client('worker-2');
    const run2 = w2.work({ signal: new AbortController().signal });
    for (let i = 0; i < 500 && !b.requests().some((e) => e.worker_id === 'worker-2'); i++) await b.clock.step();
    await w2.cancel('op_p', { actor: 'dave', reason: 'stop it', cancel_deadline_ms: 60_000 });
    for (let i = 0; i < 500 && !b.requests().some((e) => e.route === 'cancel'); i++) await b.clock.step();
    p.resume();
    await drive(b.clock, Promise.all([run1, run2]));

    const rec = await w2.show('op_p');
    expect(rec.state).toBe('cancelled');
    expect(jobsCreatedFor(b, 'op_p')).toHaveLength(1);
    expect(b.requests().filter((e) => e.seq > pausedAtSeq && e.worker_id === 'worker-1')).toEqual([]);
    expect(b.requests().filter((e) => e.route === 'cancel')).toHaveLength(1);
    // Worker-1's last history entry is before the takeover; its late answer is in the audit only, marked stale.
    const takeover = rec.history.findIndex((h) => h.actor === 'worker-2');
    expect(rec.history.slice(takeover).every((h) => h.actor === 'worker-2')).toBe(true);
    const audit = await (w2.store as SqliteOperationStore).auditRows();
    expect(audit.some((a) => a.kind === 'stale_answer' && a.actor === 'worker-1')).toBe(true);
    expect(audit.some((a) => a.kind === 'lease' && a.actor === 'worker-2')).toBe(true);
  });
});
