import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobSchema } from '../../../src/contract/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { createBody, journalEntryFor, newKey, problemOf, startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';

let ps: ProviderServer;
const advance = async (ms: number) => expect((await ps.control('POST', '/_control/clock', { body: { advance_ms: ms } })).status).toBe(200);

async function create(token: string, extra: Record<string, unknown> = {}, key = newKey()) {
  const res = await ps.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': key }, body: createBody(extra) });
  expect(res.status).toBe(202);
  return res.json.job_id as string;
}

beforeAll(async () => {
  ps = await startProviderServer({ clock: new VirtualClock(), behavior: { default: { duration_ms: 10_000, items: 100 } } });
});
afterAll(async () => ps.stop());

describe('GET /v1/jobs/{id}', () => {
  it('returns exactly the Job fields, with Retry-After while not terminal and none once terminal', async () => {
    const id = await create('dev-token', { client_ref: 'read-1' });
    const queued = await ps.call('GET', `/v1/jobs/${id}`);
    expect(queued.status).toBe(200);
    const job = JobSchema.strict().parse(queued.json);
    expect(job).toMatchObject({
      job_id: id,
      kind: 'report',
      state: 'queued',
      client_ref: 'read-1',
      trace_id: null,
      cancel_requested_at: null,
      result: null,
      error: null,
    });
    expect(queued.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(journalEntryFor(ps.provider, queued)).toMatchObject({
      effect: 'read',
      job_id: id,
      job_state: 'queued',
      retry_after: Number(queued.headers.get('retry-after')),
    });

    await advance(5_000);
    const running = await ps.call('GET', `/v1/jobs/${id}`);
    expect(running.json.state).toBe('running');
    expect(running.json.progress.total).toBe(100);
    expect(running.json.progress.completed).toBeLessThan(100);
    expect(running.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Date.parse(running.json.updated_at)).toBeGreaterThan(Date.parse(running.json.created_at));

    await advance(5_000);
    const done = await ps.call('GET', `/v1/jobs/${id}`);
    expect(done.json.state).toBe('succeeded');
    expect(done.json.progress).toEqual({ completed: 100, total: 100 });
    expect(done.headers.get('retry-after')).toBeNull();
    expect(journalEntryFor(ps.provider, done).retry_after).toBeNull();
  });

  it('answers an unknown job id with 404 job_not_found', async () => {
    for (const id of ['job_doesnotexist', 'nope', 'job_' + 'x'.repeat(300), '%E2%9C%93']) {
      problemOf(await ps.call('GET', `/v1/jobs/${id}`), 404, 'job_not_found');
    }
  });

  it('echoes X-Trace-ID and journals X-Worker-ID on reads; every answer carries X-Request-ID = journal request_id', async () => {
    const id = await create('dev-token');
    const res = await ps.call('GET', `/v1/jobs/${id}`, { headers: { 'x-trace-id': 'tr_read', 'x-worker-id': 'w-1' } });
    expect(res.headers.get('x-trace-id')).toBe('tr_read');
    const entry = journalEntryFor(ps.provider, res);
    expect(entry).toMatchObject({ trace_id: 'tr_read', worker_id: 'w-1', method: 'GET', path: `/v1/jobs/${id}` });
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const miss = await ps.call('GET', '/v1/jobs/job_missing', { headers: { 'x-trace-id': 'tr_miss' } });
    expect(miss.headers.get('x-trace-id')).toBe('tr_miss');
    expect(journalEntryFor(ps.provider, miss)).toMatchObject({ status: 404, code: 'job_not_found', trace_id: 'tr_miss' });
  });

  it('gives X-Request-IDs that are unique per request', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 10; i++) ids.add((await ps.call('GET', '/v1/jobs/job_x')).headers.get('x-request-id')!);
    expect(ids.size).toBe(10);
  });
});

describe('GET /v1/jobs?client_ref= / ?idempotency_key=', () => {
  it('finds by client_ref within the tenant, newest first, paginated with limit and cursor', async () => {
    const ref = `op_${newKey()}`;
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.push(await create(i % 2 ? 'dev-token-2' : 'dev-token', { client_ref: ref }));
    const foreign = await create('other-tenant-token', { client_ref: ref });
    await create('dev-token', { client_ref: `${ref}-other` });

    const all = await ps.call('GET', `/v1/jobs?client_ref=${encodeURIComponent(ref)}`);
    expect(all.status).toBe(200);
    expect(Object.keys(all.json).sort()).toEqual(['data', 'next_cursor']);
    expect(all.json.data.map((j: { job_id: string }) => j.job_id)).toEqual([...mine].reverse());
    expect(all.json.next_cursor).toBeNull();
    for (const j of all.json.data) JobSchema.strict().parse(j);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `/v1/jobs?client_ref=${encodeURIComponent(ref)}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await ps.call('GET', q);
      expect(page.status).toBe(200);
      expect(page.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.json.data.map((j: { job_id: string }) => j.job_id));
      cursor = page.json.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual([...mine].reverse());
    expect(pages).toBe(3);

    const theirs = await ps.call('GET', `/v1/jobs?client_ref=${encodeURIComponent(ref)}`, { token: 'other-tenant-token' });
    expect(theirs.json.data.map((j: { job_id: string }) => j.job_id)).toEqual([foreign]);
  });

  it('finds by idempotency_key among the caller subject’s own keys only', async () => {
    const key = newKey('find');
    const a = await create('dev-token', {}, key);
    const b = await create('dev-token-2', {}, key);
    const c = await create('other-tenant-token', {}, key);
    const ids = async (token: string, k = key) =>
      (await ps.call('GET', `/v1/jobs?idempotency_key=${encodeURIComponent(k)}`, { token })).json.data.map(
        (j: { job_id: string }) => j.job_id,
      );
    expect(await ids('dev-token')).toEqual([a]);
    expect(await ids('dev-token-2')).toEqual([b]);
    expect(await ids('other-tenant-token')).toEqual([c]);
    expect(await ids('reviewer-token')).toEqual([]);
    // The sf-string form names the same key.
    expect(await ids('dev-token', `"${key}"`)).toEqual([a]);
    expect(await ids('dev-token', `${key}-unknown`)).toEqual([]);
  });

  it('answers an empty match with an empty page', async () => {
    const res = await ps.call('GET', '/v1/jobs?client_ref=never-used-ref');
    expect(res.json).toEqual({ data: [], next_cursor: null });
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'limit=2.5', 'cursor=garbage', 'client_ref=' + 'x'.repeat(201)])(
    'answers a bad query (%s) with 400 invalid_request',
    async (q) => {
      const p = problemOf(await ps.call('GET', `/v1/jobs?${q}`), 400, 'invalid_request');
      expect(p.errors.length).toBeGreaterThan(0);
    },
  );

  it.each(['limit=1', 'limit=100'])('accepts the limit bounds (%s)', async (q) => {
    expect((await ps.call('GET', `/v1/jobs?client_ref=x&${q}`)).status).toBe(200);
  });

  it('answers 401 without a token', async () => {
    problemOf(await ps.call('GET', '/v1/jobs?client_ref=x', { token: null }), 401, 'unauthorized');
  });
});

describe('X-Request-ID on every answer', () => {
  it('stamps every kind of answer with a fresh req_ id that is the journal entry of that request', async () => {
    const id = await create('dev-token');
    const answers = [
      await ps.call('GET', `/v1/jobs/${id}`),
      await ps.call('GET', `/v1/jobs/${id}`, { token: null }),
      await ps.call('GET', '/v1/jobs/job_none'),
      await ps.call('GET', `/v1/jobs/${id}/results`),
      await ps.call('DELETE', `/v1/jobs/${id}`),
      await ps.call('GET', '/nowhere'),
      await ps.call('GET', '/v1/jobs?client_ref=x'),
      await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: createBody() }),
      await ps.call('POST', '/v1/jobs', { body: createBody() }),
      await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' }, body: '{' }),
      await ps.call('POST', '/v1/jobs', {
        headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' },
        body: 'x'.repeat(1024 * 1024 + 1),
      }),
      await ps.call('POST', `/v1/jobs/${id}/cancel`),
    ];
    const seen = new Set<string>();
    for (const res of answers) {
      const rid = res.headers.get('x-request-id')!;
      expect(rid).toMatch(/^req_[0-9a-z]+$/);
      expect(seen.has(rid)).toBe(false);
      seen.add(rid);
      expect(journalEntryFor(ps.provider, res).status).toBe(res.status);
      if (res.status >= 400) expect(res.json.request_id).toBe(rid);
    }
    expect(answers.map((a) => a.status)).toEqual([200, 401, 404, 409, 405, 404, 200, 202, 400, 400, 413, 202]);
    // Control answers carry one too, though the journal (about the client under test) leaves them out.
    expect((await ps.control('GET', '/_control/jobs')).headers.get('x-request-id')).toMatch(/^req_/);
  });
});
