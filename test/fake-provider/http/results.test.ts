import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultItemSchema } from '../../../src/contract/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { journalEntryFor, newKey, problemOf, startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';

let ps: ProviderServer;
const advance = async (ms: number) => expect((await ps.control('POST', '/_control/clock', { body: { advance_ms: ms } })).status).toBe(200);

const BEHAVIOR = {
  default: { duration_ms: 1_000, items: 12, items_failed: 3 },
  by_kind: {
    oneshot: { duration_ms: 1_000, one_shot_results: true },
    corrupt: { duration_ms: 1_000, corrupt_digest: true, items: 4 },
    errorrow: { duration_ms: 1_000, error_row: true, items: 3 },
    liar: { duration_ms: 10_000, progress_lies: true, items: 50 },
    failing: { duration_ms: 1_000, outcome: 'failed' as const },
    expiring: { duration_ms: 1_000, outcome: 'expired' as const },
    perishable: { duration_ms: 1_000, results_ttl_ms: 5_000 },
    empty: { duration_ms: 1_000, items: 0 },
  },
};

async function create(kind = 'report', token = 'dev-token') {
  const res = await ps.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': newKey() }, body: { kind, input: {} } });
  expect(res.status).toBe(202);
  return res.json.job_id as string;
}
const results = (id: string, token = 'dev-token') => ps.call('GET', `/v1/jobs/${id}/results`, { token });
const read = async (id: string) => (await ps.call('GET', `/v1/jobs/${id}`)).json;
const sha256 = (s: string, enc: 'hex' | 'base64') => createHash('sha256').update(s).digest(enc);

beforeAll(async () => {
  ps = await startProviderServer({ clock: new VirtualClock(), behavior: BEHAVIOR });
});
afterAll(async () => ps.stop());

describe('GET /v1/jobs/{id}/results', () => {
  it('serves NDJSON whose Content-Digest and result.sha256 match the body, with item counts', async () => {
    const id = await create();
    await advance(1_000);
    const job = await read(id);
    expect(job.state).toBe('succeeded');
    const res = await results(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('content-digest')).toBe(`sha-256=:${sha256(res.text, 'base64')}:`);
    expect(job.result).toEqual({
      url: `/v1/jobs/${id}/results`,
      sha256: sha256(res.text, 'hex'),
      content_type: 'application/x-ndjson',
      size: Buffer.byteLength(res.text),
      items_total: 12,
      items_failed: 3,
    });
    expect(res.headers.get('x-items-total')).toBe('12');
    expect(res.headers.get('x-items-failed')).toBe('3');
    expect(res.text.endsWith('\n')).toBe(true);
    const items = res.text
      .trimEnd()
      .split('\n')
      .map((l) => ResultItemSchema.parse(JSON.parse(l)));
    expect(items).toHaveLength(12);
    expect(items.filter((i) => i.status === 'failed')).toHaveLength(3);
    expect(new Set(items.map((i) => i.item_id)).size).toBe(12);
    expect(journalEntryFor(ps.provider, res)).toMatchObject({ effect: 'results_served', job_id: id, status: 200 });
    // Fetching again gives the same bytes.
    expect((await results(id)).text).toBe(res.text);
  });

  it('serves an empty body for a job with no items, digest still right', async () => {
    const id = await create('empty');
    await advance(1_000);
    const res = await results(id);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(res.headers.get('content-digest')).toBe(`sha-256=:${sha256('', 'base64')}:`);
    expect((await read(id)).result.sha256).toBe(sha256('', 'hex'));
  });

  it('409 job_not_succeeded with the Job while queued, running, failed, expired or cancelled', async () => {
    const running = await create();
    const p = problemOf(await results(running), 409, 'job_not_succeeded');
    expect(p.job).toMatchObject({ job_id: running, state: 'queued' });
    await advance(500);
    expect(problemOf(await results(running), 409, 'job_not_succeeded').job.state).toBe('running');

    const failed = await create('failing');
    const expired = await create('expiring');
    const cancelled = await create();
    await ps.call('POST', `/v1/jobs/${cancelled}/cancel`);
    await advance(1_000);
    const f = problemOf(await results(failed), 409, 'job_not_succeeded').job;
    expect(f).toMatchObject({ state: 'failed', result: null, error: { code: expect.any(String), message: expect.any(String) } });
    expect(problemOf(await results(expired), 409, 'job_not_succeeded').job).toMatchObject({ state: 'expired', result: null, error: null });
    expect(problemOf(await results(cancelled), 409, 'job_not_succeeded').job.state).toBe('cancelled');
  });

  it('one-shot results: 200 once, then 410 results_gone', async () => {
    const id = await create('oneshot');
    await advance(1_000);
    expect((await results(id)).status).toBe(200);
    problemOf(await results(id), 410, 'results_gone');
    problemOf(await results(id), 410, 'results_gone');
    // The job itself still reads as succeeded.
    expect((await read(id)).state).toBe('succeeded');
  });

  it('results that expire: 410 results_gone after results_ttl_ms', async () => {
    const id = await create('perishable');
    await advance(1_000);
    expect((await results(id)).status).toBe(200);
    await advance(4_999);
    expect((await results(id)).status).toBe(200);
    await advance(1);
    problemOf(await results(id), 410, 'results_gone');
  });

  it('corrupt_digest: the body no longer matches its Content-Digest nor result.sha256', async () => {
    const id = await create('corrupt');
    await advance(1_000);
    const res = await results(id);
    expect(res.status).toBe(200);
    const digest = res.headers.get('content-digest')!;
    expect(digest).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
    expect(digest).not.toBe(`sha-256=:${sha256(res.text, 'base64')}:`);
    expect((await read(id)).result.sha256).not.toBe(sha256(res.text, 'hex'));
    // The advertised digest is the one of the honest body, so both promises agree with each other.
    expect(Buffer.from(digest.slice(9, -1), 'base64').toString('hex')).toBe((await read(id)).result.sha256);
  });

  it('error_row: one line is no item at all', async () => {
    const id = await create('errorrow');
    await advance(1_000);
    const res = await results(id);
    const lines = res.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(4);
    const bad = lines.filter((l) => !ResultItemSchema.safeParse(l).success);
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatchObject({ status: 'error' });
    expect(bad[0].item_id).toBeUndefined();
    expect(res.headers.get('content-digest')).toBe(`sha-256=:${sha256(res.text, 'base64')}:`);
    expect(res.headers.get('x-items-total')).toBe('3');
  });

  it('progress_lies: reads 100 % while still running', async () => {
    const id = await create('liar');
    await advance(1_000);
    const j = await read(id);
    expect(j.state).toBe('running');
    expect(j.progress).toEqual({ completed: 50, total: 50 });
    problemOf(await results(id), 409, 'job_not_succeeded');
    await advance(9_000);
    expect((await read(id)).state).toBe('succeeded');
  });

  it('another tenant: 404 job_not_found; unknown job: 404', async () => {
    const id = await create();
    await advance(1_000);
    problemOf(await results(id, 'other-tenant-token'), 404, 'job_not_found');
    problemOf(await results('job_unknown'), 404, 'job_not_found');
    expect((await results(id, 'dev-token-2')).status).toBe(200);
  });
});
