import { describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/fake-provider/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';

describe('the journal of a find', () => {
  it('records the jobs the answer listed with their states, so the judge can count a list read as a read', async () => {
    const clock = new VirtualClock();
    const p = createProvider({ clock, behavior: { default: { duration_ms: 100 } } });
    const auth = { authorization: 'Bearer dev-token', 'content-type': 'application/json' };
    const res = await p.fetch('/v1/jobs', {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'k1' },
      body: JSON.stringify({ kind: 'report', input: {}, client_ref: 'op_1' }),
    });
    const { job_id } = (await res.json()) as { job_id: string };
    await clock.advance(500);
    const list = await p.fetch('/v1/jobs?client_ref=op_1', { headers: auth });
    expect(list.status).toBe(200);
    const entry = p.journal
      .all()
      .filter((e) => e.type === 'request' && e.route === 'list')
      .at(-1);
    expect(entry && entry.type === 'request' && entry.listed).toEqual([{ job_id, state: 'succeeded' }]);
    p.close();
  });
});
