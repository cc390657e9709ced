import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import { JobSchema } from '../../../src/contract/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import {
  createBody,
  journalEntryFor,
  keyInFlight,
  makeCall,
  newKey,
  problemOf,
  startProviderServer,
  waitFor,
  type ProviderServer,
} from '../../helpers/provider-server.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let ps: ProviderServer;
beforeAll(async () => {
  ps = await startProviderServer({ behavior: { default: { duration_ms: 60_000 }, by_kind: { quick: { mode: 'sync', items: 3 } } } });
});
afterAll(async () => ps.stop());
beforeEach(() => ps.provider.control.clearFaults());

async function jobCount(): Promise<number> {
  return (await ps.control('GET', '/_control/jobs')).json.data.length;
}

describe('POST /v1/jobs over HTTP', () => {
  it('answers 202 with Location and {job_id, state: queued, status_url, created_at}', async () => {
    const key = newKey();
    const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody({ client_ref: 'op_1' }) });
    expect(res.status).toBe(202);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.json).sort()).toEqual(['created_at', 'job_id', 'state', 'status_url']);
    expect(res.json.job_id).toMatch(/^job_/);
    expect(res.json.state).toBe('queued');
    expect(res.json.status_url).toBe(`/v1/jobs/${res.json.job_id}`);
    expect(res.headers.get('location')).toBe(`/v1/jobs/${res.json.job_id}`);
    expect(res.json.created_at).toMatch(ISO_MS);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const entry = journalEntryFor(ps.provider, res);
    expect(entry).toMatchObject({
      effect: 'created',
      job_id: res.json.job_id,
      status: 202,
      idempotency_key: key,
      tenant: 'acme',
      subject: 'agent-1',
      client_ref: 'op_1',
    });
    expect(entry.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    const read = await ps.call('GET', res.json.status_url);
    expect(read.status).toBe(200);
    expect(read.json.client_ref).toBe('op_1');
  });

  it('answers 200 with the whole succeeded Job when the behaviour is sync', async () => {
    const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: { kind: 'quick', input: {} } });
    expect(res.status).toBe(200);
    expect(JobSchema.strict().parse(res.json).state).toBe('succeeded');
    expect(res.headers.get('location')).toBe(`/v1/jobs/${res.json.job_id}`);
    expect(res.json.result).toMatchObject({
      url: `/v1/jobs/${res.json.job_id}/results`,
      content_type: 'application/x-ndjson',
      items_total: 3,
      items_failed: 0,
    });
    const results = await ps.call('GET', res.json.result.url);
    expect(results.status).toBe(200);
  });

  it.each([
    ['async 202', 'report'],
    ['sync 200', 'quick'],
  ])('replays the first answer byte for byte with Idempotent-Replayed: true (%s)', async (_n, kind) => {
    const key = newKey();
    const body = { kind, input: { a: 1, b: [1, 2] }, client_ref: 'r' };
    const first = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body });
    // Same body, other key order and whitespace: same canonical fingerprint.
    const again = await ps.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      body: '{ "client_ref": "r", "input": {"b": [1, 2], "a": 1}, "kind": "' + kind + '" }',
    });
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(journalEntryFor(ps.provider, again)).toMatchObject({ effect: 'replayed', job_id: first.json.job_id });
    const found = await ps.call('GET', `/v1/jobs?idempotency_key=${encodeURIComponent(key)}`);
    expect(found.json.data).toHaveLength(1);
  });

  it('refuses the same key with another body: 422 idempotency_key_reused, nothing created', async () => {
    const key = newKey();
    await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
    const before = await jobCount();
    const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody({ client_ref: 'other' }) });
    problemOf(res, 422, 'idempotency_key_reused');
    expect(await jobCount()).toBe(before);
    expect(journalEntryFor(ps.provider, res)).toMatchObject({ effect: 'none', code: 'idempotency_key_reused', status: 422 });
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['blank', '   '],
  ])('refuses a create without Idempotency-Key (%s): 400 idempotency_key_missing', async (_n, key) => {
    const before = await jobCount();
    const headers: Record<string, string> = key === undefined ? {} : { 'idempotency-key': key };
    problemOf(await ps.call('POST', '/v1/jobs', { headers, body: createBody() }), 400, 'idempotency_key_missing');
    expect(await jobCount()).toBe(before);
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['non-visible characters', 'a b'],
    ['unterminated sf-string', '"abc'],
    ['empty sf-string', '""'],
    ['sf-string naming a key with a space', '"a b"'],
  ])('refuses a malformed Idempotency-Key (%s) with 400 invalid_request', async (_n, key) => {
    const p = problemOf(
      await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() }),
      400,
      'invalid_request',
    );
    expect(p.errors[0]).toMatchObject({ path: expect.any(String), message: expect.any(String) });
  });

  it('accepts a 255-character key', async () => {
    const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': `${newKey()}-`.padEnd(255, 'x') }, body: createBody() });
    expect(res.status).toBe(202);
  });

  it('treats the bare form abc and the sf-string form "abc" as the same key', async () => {
    const bare = newKey('sf');
    const first = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': bare }, body: createBody() });
    const quoted = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': `"${bare}"` }, body: createBody() });
    expect(first.status).toBe(202);
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
    expect(quoted.text).toBe(first.text);
    // And the other way round, with a different body: the quoted key is the same key, so 422.
    const quotedFirst = newKey('sf2');
    await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': `"${quotedFirst}"` }, body: createBody() });
    problemOf(
      await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': quotedFirst }, body: createBody({ client_ref: 'x' }) }),
      422,
      'idempotency_key_reused',
    );
  });

  it('answers a duplicate that arrives while the first is in flight with 409 idempotency_request_in_progress + Retry-After', async () => {
    // A virtual clock holds the first request (delay fault) until the test lets it go: no race with wall time.
    const clock = new VirtualClock();
    const local = await startProviderServer({ clock, faults: { rules: [{ on: 'create', nth: 1, fault: { type: 'delay', ms: 500 } }] } });
    try {
      const key = newKey('inflight');
      const first = local.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
      await waitFor(() => keyInFlight(local.provider, 'POST /v1/jobs', key));
      const dup = await local.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
      problemOf(dup, 409, 'idempotency_request_in_progress');
      expect(Number(dup.headers.get('retry-after'))).toBeGreaterThanOrEqual(0);
      expect(dup.headers.get('retry-after')).toMatch(/^\d+$/);
      // A different body while in flight is still a mismatch.
      problemOf(
        await local.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody({ client_ref: 'z' }) }),
        422,
        'idempotency_key_reused',
      );
      expect(keyInFlight(local.provider, 'POST /v1/jobs', key)).toBe(true);
      await clock.advance(500);
      const done = await first;
      expect(done.status).toBe(202);
      expect(journalEntryFor(local.provider, done)).toMatchObject({ effect: 'created', delivery: 'delayed', fault: { type: 'delay' } });
      expect(journalEntryFor(local.provider, dup)).toMatchObject({ effect: 'none', retry_after: Number(dup.headers.get('retry-after')) });
      const replay = await local.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
      expect(replay.text).toBe(done.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await local.stop();
    }
  });

  it('answers malformed JSON with 400 invalid_json and creates nothing; the key stays unused', async () => {
    const key = newKey();
    const before = await jobCount();
    for (const raw of ['{', '{"kind": "report", "input": {}', 'nope', '', '{"kind":"report","input":{}} trailing']) {
      const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key, 'content-type': 'application/json' }, body: raw });
      problemOf(res, 400, 'invalid_json');
      expect(journalEntryFor(ps.provider, res).effect).toBe('none');
    }
    expect(await jobCount()).toBe(before);
    const ok = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody({ client_ref: 'after-bad' }) });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it.each([
    ['missing kind', { input: {} }, 'kind'],
    ['kind with capitals', { kind: 'Report', input: {} }, 'kind'],
    ['kind too long', { kind: 'a'.repeat(65), input: {} }, 'kind'],
    ['input not an object', { kind: 'report', input: [1] }, 'input'],
    ['input missing', { kind: 'report' }, 'input'],
    ['client_ref too long', { kind: 'report', input: {}, client_ref: 'x'.repeat(201) }, 'client_ref'],
    ['client_ref wrong type', { kind: 'report', input: {}, client_ref: 7 }, 'client_ref'],
    ['webhook_url not http(s)', { kind: 'report', input: {}, webhook_url: 'ftp://example.com/x' }, 'webhook_url'],
    ['webhook_url not a URL', { kind: 'report', input: {}, webhook_url: 'hooks' }, 'webhook_url'],
    ['body is an array', [1, 2], '(body)'],
    ['body is null', null, '(body)'],
  ])('answers a schema violation (%s) with 400 invalid_request and errors[{path,message}]', async (_n, body, path) => {
    const before = await jobCount();
    const key = newKey();
    const res = await ps.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const p = problemOf(res, 400, 'invalid_request');
    expect(Array.isArray(p.errors)).toBe(true);
    for (const e of p.errors) expect(e).toEqual({ path: expect.any(String), message: expect.any(String) });
    expect(p.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await jobCount()).toBe(before);
    // The refused request left the key unused.
    expect((await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() })).status).toBe(202);
  });

  it('answers a body over 1 MiB with 413 payload_too_large, whether or not Content-Length is sent', async () => {
    const before = await jobCount();
    const big = JSON.stringify(createBody({ input: { blob: 'x'.repeat(1024 * 1024) } }));
    const res = await ps.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' },
      body: big,
    });
    problemOf(res, 413, 'payload_too_large');
    // The server read the whole body before answering (issue 11 item 8), so the connection stays usable.
    expect(res.headers.get('connection')).not.toBe('close');
    expect(journalEntryFor(ps.provider, res)).toMatchObject({ status: 413, code: 'payload_too_large', effect: 'none' });
    expect((await ps.call('GET', '/v1/jobs')).status).toBe(200);
    // Chunked (no Content-Length): a stream body.
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        const chunk = new TextEncoder().encode(big.slice(0, 64 * 1024));
        for (let i = 0; i < 20; i++) ctl.enqueue(chunk);
        ctl.close();
      },
    });
    const chunked = await fetch(`${ps.url}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'idempotency-key': newKey(), 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).code).toBe('payload_too_large');
    expect((await ps.call('GET', '/v1/jobs')).status).toBe(200);
    expect(await jobCount()).toBe(before);
  });

  it('accepts a body just under 1 MiB', async () => {
    const body = JSON.stringify(createBody({ input: { blob: 'x'.repeat(1024 * 1024 - 100) } }));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 1024);
    const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' }, body });
    expect(res.status).toBe(202);
  });

  it.each([
    ['missing', null],
    ['unknown', 'no-such-token'],
    ['control token', 'control-token'],
  ])('answers a %s bearer token with 401 unauthorized', async (_n, token) => {
    const before = await jobCount();
    const res = await ps.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': newKey() }, body: createBody() });
    problemOf(res, 401, 'unauthorized');
    expect(await jobCount()).toBe(before);
  });

  it.each([
    ['fail_before_commit', { type: 'fail_before_commit', status: 503, retry_after: 2 }, 503, 'provider_unavailable'],
    ['rate_limit', { type: 'rate_limit', retry_after: 3 }, 429, 'rate_limited'],
  ])('an injected %s refuses before execution and leaves the key unused', async (_n, fault, status, code) => {
    await ps.control('PUT', '/_control/faults', { body: { rules: [{ on: 'create', nth: 1, fault }] } });
    const key = newKey();
    const before = await jobCount();
    const refused = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
    problemOf(refused, status, code);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await jobCount()).toBe(before);
    const ok = await ps.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key },
      body: createBody({ client_ref: 'other-body-is-fine' }),
    });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
  });

  it('error_after_commit: the job exists, the key is used, the retry replays the stored answer', async () => {
    await ps.control('PUT', '/_control/faults', { body: { rules: [{ on: 'create', nth: 1, fault: { type: 'error_after_commit' } }] } });
    const key = newKey();
    const failed = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
    expect(failed.status).toBe(500);
    expect(journalEntryFor(ps.provider, failed).effect).toBe('created');
    const retry = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.json.job_id).toBe(journalEntryFor(ps.provider, failed).job_id);
  });

  it('lose_response (reset): the client sees a network error, the job exists and the retry replays it', async () => {
    await ps.control('PUT', '/_control/faults', {
      body: { rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] },
    });
    const key = newKey();
    await expect(ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() })).rejects.toThrow();
    const retry = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const created = ps.provider.journal.all().find((e) => e.type === 'request' && e.idempotency_key === key && e.effect === 'created');
    expect(created).toMatchObject({ delivery: 'lost', job_id: retry.json.job_id });
  });

  it('foreign_job_id: a replay names a job id the key never created', async () => {
    const key = newKey();
    const first = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
    await ps.control('PUT', '/_control/faults', { body: { rules: [{ on: 'create', fault: { type: 'foreign_job_id' } }] } });
    const replay = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: createBody() });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.job_id).not.toBe(first.json.job_id);
    expect(replay.headers.get('location')).toBe(`/v1/jobs/${replay.json.job_id}`);
    // The journal records the id the client was told, not the key's own job.
    expect(journalEntryFor(ps.provider, replay)).toMatchObject({ effect: 'foreign_replay', job_id: replay.json.job_id });
  });

  it('records and echoes any X-Trace-ID as sent (trimmed), odd characters included', async () => {
    for (const trace of ['tr with spaces', 't'.repeat(500), '"quoted"; x=1']) {
      const res = await ps.call('GET', '/v1/jobs/job_nope', { headers: { 'x-trace-id': ` ${trace} `, 'x-worker-id': trace } });
      expect(res.headers.get('x-trace-id')).toBe(trace);
      expect(journalEntryFor(ps.provider, res)).toMatchObject({ trace_id: trace, worker_id: trace });
    }
    // Non-ASCII bytes cannot be echoed byte for byte; they are journalled (as latin-1) and not echoed.
    const latin = await ps.call('GET', '/v1/jobs/job_nope', { headers: { 'x-trace-id': 'tr_\u00e9\u00ff' } });
    expect(latin.headers.get('x-trace-id')).toBeNull();
    expect(journalEntryFor(ps.provider, latin).trace_id).toBe('tr_\u00e9\u00ff');
    const none = await ps.call('GET', '/v1/jobs/job_nope', { headers: { 'x-trace-id': '   ' } });
    expect(none.headers.get('x-trace-id')).toBeNull();
    expect(journalEntryFor(ps.provider, none).trace_id).toBeNull();
  });

  it('records X-Trace-ID and X-Worker-ID in the journal and echoes X-Trace-ID', async () => {
    const res = await ps.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': newKey(), 'x-trace-id': 'tr_0830d3', 'x-worker-id': 'worker-7' },
      body: createBody(),
    });
    expect(res.headers.get('x-trace-id')).toBe('tr_0830d3');
    expect(journalEntryFor(ps.provider, res)).toMatchObject({ trace_id: 'tr_0830d3', worker_id: 'worker-7' });
    const job = await ps.call('GET', `/v1/jobs/${res.json.job_id}`);
    expect(job.json.trace_id).toBe('tr_0830d3');
  });
});

describe('idempotency TTL (in-process, virtual clock)', () => {
  let provider: Provider;
  let clock: VirtualClock;
  beforeAll(() => {
    clock = new VirtualClock();
    provider = createProvider({ clock, idempotencyTtlMs: 10_000, behavior: { default: { duration_ms: 1_000 } } });
  });
  afterAll(() => provider.close());

  it('replays within the TTL and creates a new job with the same key after it', async () => {
    const call = makeCall('', provider.fetch);
    const post = (body: unknown) => call('POST', '/v1/jobs', { headers: { 'idempotency-key': 'ttl-key' }, body });
    const first = await post(createBody());
    expect(first.status).toBe(202);
    await clock.advance(9_999);
    const within = await post(createBody());
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.text).toBe(first.text);
    problemOf(await post(createBody({ client_ref: 'changed' })), 422, 'idempotency_key_reused');
    await clock.advance(1);
    const after = await post(createBody({ client_ref: 'changed' }));
    expect(after.status).toBe(202);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.json.job_id).not.toBe(first.json.job_id);
    const created = provider.journal.all().filter((e) => e.type === 'request' && e.effect === 'created');
    expect(created.map((e) => e.type === 'request' && e.job_id)).toEqual([first.json.job_id, after.json.job_id]);
    // The new key record has its own TTL: replayed now, not the old answer.
    const again = await post(createBody({ client_ref: 'changed' }));
    expect(again.text).toBe(after.text);
  });
});
