import { afterEach, describe, expect, it } from 'vitest';
import { bench, jobsCreatedFor, op, type Bench } from './harness.js';

describe('reference client, happy paths (in-process, virtual clock)', () => {
  let b: Bench;
  afterEach(() => b?.close());

  it('creates, observes, collects and verifies', async () => {
    b = bench({ behavior: { duration_ms: 3000, items: 10, items_failed: 2 } });
    const c = b.client();
    await c.submit(op('op_1'));
    await b.work(c);
    const rec = await c.show('op_1');
    expect(rec.state).toBe('succeeded');
    expect(rec.result).toMatchObject({ items_total: 10, items_failed: 2 });
    expect(jobsCreatedFor(b, 'op_1')).toHaveLength(1);
    const job = b.provider.journal.all().find((e) => e.type === 'request' && e.route === 'status' && e.job_state === 'succeeded');
    expect(job).toBeTruthy();
    expect(rec.history.map((h) => h.to)).toEqual(['create_pending', 'accepted', 'observing', 'result_collecting', 'succeeded']);
    for (const e of b.requests()) {
      expect(e.trace_id).toBe(rec.trace_id);
      expect(e.worker_id).toBe('worker-1');
    }
  });

  it('takes the synchronous path', async () => {
    b = bench({ behavior: { mode: 'sync' } });
    const c = b.client();
    await c.submit(op('op_s'));
    await b.work(c);
    const rec = await c.show('op_s');
    expect(rec.state).toBe('succeeded');
    expect(rec.history.map((h) => h.to)).toEqual(['create_pending', 'result_collecting', 'succeeded']);
  });
});
