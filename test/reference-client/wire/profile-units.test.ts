import { describe, expect, it } from 'vitest';
import type { CallOutcome, CallSpec } from '../../../src/reference-client/http.js';
import type { OperationRow } from '../../../src/reference-client/types.js';
import type { WireStep } from '../../../src/reference-client/wire/adapter.js';
import { profileWire } from '../../../src/reference-client/wire/profile.js';
import { createSpec, routePath } from '../../../src/reference-client/wire/profile-request.js';
import { profileJob } from '../../../src/reference-client/wire/profile-view.js';
import { profileTraits } from '../../../src/reference-client/wire/traits.js';
import { profileOf } from './profile-rig.js';

/** The profile adapter's own decisions, without a server: requests as each profile shapes them, answers classified. */
const NOW = Date.parse('2026-12-01T12:00:00Z');
const rec = (over: Partial<OperationRow> = {}) =>
  ({
    operation_id: 'op_a',
    kind: 'report',
    trace_id: 'tr_1',
    idempotency_key: 'idem_1',
    submitted_at: NOW - 10_000,
    remote_job_id: 'j1',
    create_attempts: 1,
    cancel: null,
    input: { account: 'acct_1' },
    ...over,
  }) as OperationRow;

function answer(json: unknown, status = 200, headers: Record<string, string> = {}, retryAfterMs: number | null = null): CallOutcome {
  return {
    kind: 'answer',
    status,
    headers: new Headers(headers),
    body: new TextEncoder().encode(JSON.stringify(json)),
    json,
    requestId: null,
    retryAfterMs,
  };
}

function step(answers: CallOutcome[], r = rec()) {
  const sent: Omit<CallSpec, 'traceId'>[] = [];
  const s: WireStep = {
    rec: r,
    now: () => NOW,
    async send(spec) {
      sent.push(spec);
      const next = answers.shift();
      if (!next) throw new Error(`unexpected request ${spec.method} ${spec.path}`);
      return next;
    },
    env: { store: { findByRemoteJobId: async () => undefined } },
  };
  return { s, sent };
}

describe('requests as each profile shapes them', () => {
  it('puts the key where the profile takes it: a header (azure-lro), a body field (google-lro), nowhere (replicate)', () => {
    const azure = createSpec(profileOf('azure-lro'), rec());
    expect(azure).toMatchObject({ method: 'POST', path: '/profiles/azure-lro/reports:generate', headers: { 'Operation-Id': 'idem_1' } });
    expect(azure.body).toEqual({ account: 'acct_1', clientReference: 'op_a' });
    const google = createSpec(profileOf('google-lro'), rec({ input: { account: 'a', request_id: 'theirs' } }));
    // The key field is the client's: every create of the operation carries the same key, whatever the input said.
    expect(google.body).toEqual({ account: 'a', request_id: 'idem_1' });
    expect(google.headers).toBeUndefined();
    const replicate = createSpec(profileOf('replicate'), rec({ input: { version: 'v1', input: { prompt: 'x' } } }));
    expect(replicate.body).toEqual({ version: 'v1', input: { prompt: 'x' } });
    expect(replicate.headers).toBeUndefined();
  });

  it('fills a path parameter from the body, without the collection the path names', () => {
    const p = profileOf('gemini-batch');
    const body = { batch: { model: 'models/gemini-2.5-flash' } };
    expect(routePath(p, p.create.route, null, body)).toBe('/profiles/gemini-batch/v1beta/models/gemini-2.5-flash:batchGenerateContent');
    expect(routePath(p, p.create.route, null, {})).toBe('/profiles/gemini-batch/v1beta/models/-:batchGenerateContent');
    expect(routePath(p, p.cancel && 'route' in p.cancel ? p.cancel.route : p.read.route, 'a/b', body)).toBe(
      '/profiles/gemini-batch/v1beta/batches/a%2Fb:cancel',
    );
  });

  it('takes auth and keys from the profile', () => {
    expect(profileTraits(profileOf('gemini-batch'))).toEqual({
      dialect: 'gemini-batch',
      auth: { header: 'x-goog-api-key', scheme: undefined },
      idempotencyKeys: false,
      webhookPerJob: false,
    });
    expect(profileTraits(profileOf('azure-lro')).idempotencyKeys).toBe(true);
  });
});

describe('answers read through the profile', () => {
  const google = profileOf('google-lro');
  const op = (over: Record<string, unknown>) => ({ name: 'operations/j1', metadata: { createTime: '2026-12-01T11:59:00Z' }, ...over });

  it('derives AIP-151 states: done + error code 1 is cancelled, an error is failed, a response succeeded', () => {
    const r = rec();
    expect(profileJob(google, op({ done: false }), r, NOW)?.state).toBe('running');
    expect(profileJob(google, op({ done: true, error: { code: 1, message: 'x' } }), r, NOW)?.state).toBe('cancelled');
    const failed = profileJob(google, op({ done: true, error: { code: 13, message: 'boom' } }), r, NOW);
    expect(failed).toMatchObject({ state: 'failed', error: { code: '13', message: 'boom' } });
    const ok = profileJob(
      google,
      op({ done: true, response: { items: [{ status: 'succeeded' }, { status: 'failed' }], sha256: 'ab' } }),
      r,
      NOW,
    );
    expect(ok?.result).toMatchObject({ sha256: 'ab', items_total: 2, items_failed: 1 });
    // No id where the profile puts it: no job view at all.
    expect(profileJob(google, { done: true }, r, NOW)).toBeNull();
  });

  it('holds Retry-After within the profile bounds (azure-lro: 1-600 s), the headers as received', async () => {
    const w = profileWire(profileOf('azure-lro'));
    const view = { id: 'j1', status: 'Running', createdDateTime: '2026-12-01T11:59:00Z', percentCompleted: 40 };
    const { s } = step([answer(view, 200, { 'retry-after': '9999' }, 9_999_000), answer(view, 200, { 'retry-after': '0' }, 0)]);
    const long = await w.read(s, false);
    expect(long.call.kind === 'answer' && long.call.retryAfterMs).toBe(600_000);
    expect(long.call.kind === 'answer' && long.call.headers.get('retry-after')).toBe('9999');
    expect(long.kind === 'job' && long.job.progress).toEqual({ completed: 40, total: 100 });
    const short = await w.read(s, false);
    expect(short.call.kind === 'answer' && short.call.retryAfterMs).toBe(1000);
  });

  it('classifies creates: 202 + Operation-Location, in progress under our key, taken, refused, ambiguous', async () => {
    const azure = profileOf('azure-lro');
    const w = profileWire(azure);
    const loc = { 'operation-location': 'http://x/profiles/azure-lro/operations/op9' };
    const { s } = step([
      answer(null, 202, loc),
      answer({ error: { code: 'Conflict', message: 'in flight' } }, 409, {}, 1000),
      answer({ error: { code: 'OperationIdReused', message: 'other body' } }, 409),
      answer({}, 503),
    ]);
    expect(await w.create(s, null)).toMatchObject({ kind: 'created', jobId: 'op9', job: null, replayed: false });
    expect((await w.create(s, null)).kind).toBe('not_done');
    expect((await w.create(s, null)).kind).toBe('refused');
    expect((await w.create(s, null)).kind).toBe('ambiguous');
  });

  it('finds a lost create by the key filter, and calls two jobs for one key a conflict', async () => {
    const w = profileWire(google);
    const listed = (ids: string[]) =>
      answer({
        operations: ids.map((id) => ({
          name: `operations/${id}`,
          done: false,
          metadata: { requestId: 'idem_1', createTime: '2026-12-01T11:59:59Z' },
        })),
      });
    const { s, sent } = step([listed(['j7']), listed(['j7', 'j8'])]);
    expect(await w.find(s, NOW + 1000)).toMatchObject({ kind: 'found', job: { job_id: 'j7' } });
    expect(decodeURIComponent(sent[0]!.path)).toContain('filter=metadata.requestId="idem_1"');
    expect(await w.find(s, NOW + 1000)).toMatchObject({ kind: 'conflict', ids: ['j8', 'j7'] });
  });

  it('adopts only a listed job whose echo is this operation’s create (replicate: no key, no filter)', async () => {
    const w = profileWire(profileOf('replicate'));
    const r = rec({ input: { version: 'v1', input: { prompt: 'mine' } } });
    const pred = (id: string, prompt: string) => ({
      id,
      status: 'processing',
      version: 'v1',
      input: { prompt },
      created_at: '2026-12-01T11:59:59Z',
    });
    const { s } = step([answer({ results: [pred('p2', 'other'), pred('p1', 'mine')], next: null })], r);
    expect(await w.find(s, NOW + 1000)).toMatchObject({ kind: 'found', job: { job_id: 'p1' } });
    const none = step([answer({ results: [pred('p2', 'other')], next: null })], r);
    expect((await w.find(none.s, NOW + 1000)).kind).toBe('none');
  });

  it('follows a next page given as a URL, asking only its path of our provider (replicate)', async () => {
    const w = profileWire(profileOf('replicate'));
    const r = rec({ input: { version: 'v1', input: { prompt: 'mine' } } });
    const pred = (id: string, prompt: string) => ({
      id,
      status: 'processing',
      version: 'v1',
      input: { prompt },
      created_at: new Date(NOW).toISOString(),
    });
    const next = 'https://elsewhere.example/profiles/replicate/v1/predictions?cursor=c5';
    const { s, sent } = step([answer({ results: [pred('p2', 'other')], next }), answer({ results: [pred('p1', 'mine')], next: null })], r);
    expect(await w.find(s, NOW + 1000)).toMatchObject({ kind: 'found', job: { job_id: 'p1' } });
    expect(sent.map((x) => x.path)).toEqual([
      '/profiles/replicate/v1/predictions?page_size=100',
      '/profiles/replicate/v1/predictions?cursor=c5',
    ]);
  });

  it('a cancel the API refuses with 405/501 is unsupported; replicate answers a finished job with its view: lost race', async () => {
    const w = profileWire(google);
    const { s } = step([answer({ error: { code: 501, status: 'UNIMPLEMENTED' } }, 501)]);
    expect((await w.cancel(s, 'r')).kind).toBe('unsupported');
    const rep = profileWire(profileOf('replicate'));
    const done = step([answer({ id: 'j1', status: 'succeeded', output: [], created_at: '2026-12-01T11:59:59Z' })]);
    expect(await rep.cancel(done.s, 'r')).toMatchObject({ kind: 'ended', job: { state: 'succeeded' } });
  });
});

describe('reading past a deadline by another route', () => {
  it('viaList reads the job through the lookup filtered to this operation (azure-lro by clientReference)', async () => {
    const w = profileWire(profileOf('azure-lro'));
    const view = (id: string) => ({
      id,
      status: 'Succeeded',
      createdDateTime: '2026-12-01T11:59:59Z',
      result: { items: [], sha256: 'ab' },
    });
    const { s, sent } = step([answer({ value: [view('j1')] }), answer(view('j1'))]);
    expect(await w.read(s, true)).toMatchObject({ kind: 'job', job: { job_id: 'j1', state: 'succeeded' } });
    expect(sent[0]!.route).toBe('list');
    expect(sent[0]!.path).toContain('clientReference=op_a');
    expect((await w.read(s, false)).kind).toBe('job');
    expect(sent[1]!.route).toBe('status');
  });
});
