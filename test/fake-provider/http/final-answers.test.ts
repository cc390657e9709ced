/**
 * The status answers of final jobs are kept (jobs/final-answers.ts): a kept answer must never be one the row no
 * longer gives — not across a failed job's settling progress, a reset, another tenant, or a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/lib/clock.js';
import { FinalAnswers } from '../../../src/fake-provider/jobs/final-answers.js';
import type { ViewValues } from '../../../src/fake-provider/store/jobs-repo.js';
import { createBody, newKey, startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';

let ps: ProviderServer;
const advance = async (ms: number) => expect((await ps.control('POST', '/_control/clock', { body: { advance_ms: ms } })).status).toBe(200);

async function create(): Promise<string> {
  const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: createBody() });
  expect(res.status).toBe(202);
  return res.json.job_id as string;
}

beforeAll(async () => {
  ps = await startProviderServer({
    clock: new VirtualClock(),
    behavior: {
      default: { duration_ms: 10_000, items: 100 },
    },
  });
});
afterAll(async () => ps.stop());

describe('kept answers of final jobs', () => {
  it('a final job reads the same each time, with its ids; another tenant still gets 404', async () => {
    const id = await create();
    await advance(10_000);
    const a = await ps.call('GET', `/v1/jobs/${id}`, { headers: { 'x-trace-id': 'tr-a' } });
    const b = await ps.call('GET', `/v1/jobs/${id}`, { headers: { 'x-trace-id': 'tr-b' } });
    expect(a.json.state).toBe('succeeded');
    expect(b.text).toBe(a.text);
    expect(b.headers.get('x-trace-id')).toBe('tr-b');
    expect(b.headers.get('x-request-id')).not.toBe(a.headers.get('x-request-id'));
    expect(b.headers.get('retry-after')).toBeNull();
    const other = await ps.call('GET', `/v1/jobs/${id}`, { token: 'other-tenant-token' });
    expect(other.status).toBe(404);
  });

  it('a job cancelled before its span was over reads its progress as of now, not as when first read', async () => {
    const id = await create();
    await advance(1_000);
    expect((await ps.call('POST', `/v1/jobs/${id}/cancel`)).status).toBeLessThan(300);
    await advance(1_000);
    const first = await ps.call('GET', `/v1/jobs/${id}`);
    expect(first.json.state).toBe('cancelled');
    const again = await ps.call('GET', `/v1/jobs/${id}`);
    expect(again.text).toBe(first.text);
    await advance(5_000);
    const later = await ps.call('GET', `/v1/jobs/${id}`);
    expect(later.json.state).toBe('cancelled');
    // Progress is a function of time (engine/lifecycle.ts progressAt) until the job's span is over.
    expect(later.json.progress.completed).toBeGreaterThan(first.json.progress.completed);
  });

  it('a reset forgets the job: the kept answer is not served', async () => {
    const id = await create();
    await advance(10_000);
    expect((await ps.call('GET', `/v1/jobs/${id}`)).status).toBe(200);
    expect((await ps.control('POST', '/_control/reset')).status).toBeLessThan(300);
    expect((await ps.call('GET', `/v1/jobs/${id}`)).status).toBe(404);
  });
});

describe('FinalAnswers', () => {
  const values = (id: string, updated = 1): ViewValues =>
    [id, 'acme', 'report', 'succeeded', null, null, 0, updated, 0, null, null, null, null, '{}', '{}', null] as ViewValues;

  it('serves a body only for the very same row values, from its settled time on', () => {
    const f = new FinalAnswers();
    f.set(values('job_a'), 'A', 100);
    expect(f.get(values('job_a'), 99)).toBeUndefined();
    expect(f.get(values('job_a'), 100)).toBe('A');
    expect(f.get(values('job_a', 2), 100)).toBeUndefined();
    expect(f.get(values('job_b'), 100)).toBeUndefined();
  });

  it('keeps a bounded number of answers, the oldest going first', () => {
    const f = new FinalAnswers();
    for (let i = 0; i < 5000; i++) f.set(values(`job_${i}`), String(i), 0);
    expect(f.get(values('job_0'), 0)).toBeUndefined();
    expect(f.get(values('job_4999'), 0)).toBe('4999');
  });
});
