import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/canonical-json.js';
import type { CallOutcome, CallSpec } from '../../src/reference-client/http.js';
import type { OperationRow } from '../../src/reference-client/types.js';
import type { WireStep } from '../../src/reference-client/wire/adapter.js';
import { anthropicJob, anthropicWire } from '../../src/reference-client/wire/anthropic.js';
import { openaiJob, openaiWire } from '../../src/reference-client/wire/openai.js';
import { DIALECTS, wireFor } from '../../src/reference-client/wire/index.js';
import { nativeWire } from '../../src/reference-client/wire/native.js';
import { verifyLines } from '../../src/reference-client/wire/result-lines.js';

/** The wire adapters' own decisions, without a server: answer classes, job views, recovery by listing, results verification. */
const NOW = Date.parse('2026-12-01T12:00:00Z');
const rec = (over: Partial<OperationRow> = {}) =>
  ({
    operation_id: 'op_a',
    kind: 'batch',
    trace_id: 'tr_1',
    submitted_at: NOW - 10_000,
    remote_job_id: null,
    input: { requests: [{ custom_id: 'a-1' }, { custom_id: 'a-2' }] },
    ...over,
  }) as OperationRow;

function answer(json: unknown, status = 200, headers: Record<string, string> = {}): CallOutcome {
  return {
    kind: 'answer',
    status,
    headers: new Headers(headers),
    body: new TextEncoder().encode(JSON.stringify(json)),
    json,
    requestId: null,
    retryAfterMs: null,
  };
}

/** A step whose sends are answered from a script, and whose store says which batches other operations own. */
function step(answers: ((spec: Omit<CallSpec, 'traceId'>) => CallOutcome)[], owned: Record<string, string> = {}, r = rec()) {
  const sent: Omit<CallSpec, 'traceId'>[] = [];
  const s: WireStep = {
    rec: r,
    now: () => NOW,
    async send(spec) {
      sent.push(spec);
      const next = answers.shift();
      if (!next) throw new Error(`unexpected request ${spec.method} ${spec.path}`);
      return next(spec);
    },
    env: { store: { findByRemoteJobId: async (id) => (owned[id] ? ({ operation_id: owned[id] } as OperationRow) : undefined) } },
  };
  return { s, sent };
}

const counts = (c: Partial<Record<'processing' | 'succeeded' | 'errored' | 'canceled' | 'expired', number>>) => ({
  processing: 0,
  succeeded: 0,
  errored: 0,
  canceled: 0,
  expired: 0,
  ...c,
});
const abatch = (id: string, status: string, c: ReturnType<typeof counts>, createdAt = NOW - 5000) => ({
  id,
  processing_status: status,
  request_counts: c,
  created_at: new Date(createdAt).toISOString(),
  cancel_initiated_at: null,
});

describe('job views', () => {
  it.each([
    ['in_progress', counts({ processing: 2 }), 'running'],
    ['canceling', counts({ processing: 2 }), 'cancelling'],
    ['ended', counts({ succeeded: 1, canceled: 1 }), 'cancelled'],
    ['ended', counts({ succeeded: 1, expired: 1 }), 'expired'],
    ['ended', counts({ errored: 2 }), 'failed'],
    ['ended', counts({ succeeded: 1, errored: 1 }), 'succeeded'],
  ])('anthropic %s %j → %s', (status, c, state) => {
    const job = anthropicJob(abatch('b', status, c), rec());
    expect(job.state).toBe(state);
    expect(job.result !== null).toBe(state === 'succeeded');
    if (state === 'succeeded') expect(job.result).toMatchObject({ items_total: 2, items_failed: 1 });
  });

  it.each([
    ['validating', 'queued'],
    ['in_progress', 'running'],
    ['finalizing', 'running'],
    ['completed', 'succeeded'],
    ['failed', 'failed'],
    ['expired', 'expired'],
    ['cancelling', 'cancelling'],
    ['cancelled', 'cancelled'],
  ])('openai %s → %s', (status, state) => {
    const job = openaiJob(
      {
        id: 'batch_1',
        status,
        created_at: NOW / 1000,
        cancelling_at: status === 'cancelling' ? NOW / 1000 : null,
        request_counts: { total: 2, completed: 1, failed: 1 },
      },
      rec(),
    );
    expect(job.state).toBe(state);
    expect(job.cancel_requested_at !== null).toBe(status === 'cancelling');
  });
});

describe('recovery of a lost create by listing', () => {
  const obatch = (id: string, op: string | null, createdAt: number) => ({
    id,
    status: 'in_progress',
    created_at: Math.floor(createdAt / 1000),
    metadata: op ? { client_operation_id: op } : {},
  });

  it('openai adopts the oldest unclaimed batch whose metadata names the operation, paging back to the window only', async () => {
    const page1 = {
      data: [obatch('b5', 'op_b', NOW), obatch('b4', 'op_a', NOW - 1000), obatch('b3', 'op_a', NOW - 2000)],
      has_more: true,
      last_id: 'b3',
    };
    const page2 = { data: [obatch('b2', 'op_a', NOW - 3000), obatch('b1', 'op_a', NOW - 3_600_000)], has_more: true, last_id: 'b1' };
    const { s, sent } = step([() => answer(page1), () => answer(page2)], { b2: 'op_other' });
    const l = await openaiWire.find(s, NOW + 1000);
    // b2 belongs to another operation, b1 is older than the window: b3 is ours. No third page was asked for.
    expect(l).toMatchObject({ kind: 'found', job: { job_id: 'b3' } });
    expect(sent.map((x) => x.path)).toEqual(['/openai/v1/batches?limit=100', '/openai/v1/batches?limit=100&after=b3']);
  });

  it('openai: none found → none; an unreadable list → unclear (never a guess)', async () => {
    expect((await openaiWire.find(step([() => answer({ data: [obatch('b5', 'op_b', NOW)], has_more: false })]).s, NOW)).kind).toBe('none');
    expect((await openaiWire.find(step([() => answer({ error: {} }, 500)]).s, NOW)).kind).toBe('unclear');
  });

  it('anthropic adopts the one unclaimed batch of our size; several wait, and past the create deadline ask a person', async () => {
    const w = anthropicWire('http://127.0.0.1:4010');
    const list =
      (...data: unknown[]) =>
      () =>
        answer({ data, has_more: false, last_id: null });
    const two = counts({ processing: 2 });
    const one = await w.find(
      step(
        [list(abatch('m3', 'in_progress', counts({ processing: 3 })), abatch('m2', 'in_progress', two), abatch('m1', 'in_progress', two))],
        { m1: 'op_other' },
      ).s,
      NOW + 1,
    );
    expect(one).toMatchObject({ kind: 'found', job: { job_id: 'm2' } });
    const many = [abatch('m2', 'in_progress', two), abatch('m1', 'in_progress', two)];
    expect((await w.find(step([list(...many)]).s, NOW + 1)).kind).toBe('unclear');
    expect(await w.find(step([list(...many)]).s, NOW)).toMatchObject({ kind: 'conflict', ids: ['m2', 'm1'] });
    // Made before the operation was submitted: not ours.
    expect((await w.find(step([list(abatch('m0', 'in_progress', two, NOW - 60_000))]).s, NOW + 1)).kind).toBe('none');
  });

  it("anthropic follows results_url only on the provider's own origin", async () => {
    const w = anthropicWire('http://127.0.0.1:4010');
    const lines = '{"custom_id":"a-1","result":{"type":"succeeded"}}\n{"custom_id":"a-2","result":{"type":"errored"}}\n';
    const results = (): CallOutcome => ({
      kind: 'answer',
      status: 200,
      headers: new Headers(),
      body: new TextEncoder().encode(lines),
      json: null,
      requestId: null,
      retryAfterMs: null,
    });
    for (const [url, path] of [
      ['http://127.0.0.1:4010/anthropic/v1/messages/batches/m1/results?x=1', '/anthropic/v1/messages/batches/m1/results?x=1'],
      ['https://evil.example/steal', '/anthropic/v1/messages/batches/m1/results'],
    ]) {
      const ended = { ...abatch('m1', 'ended', counts({ succeeded: 1, errored: 1 })), results_url: url };
      const { s, sent } = step([() => answer(ended), results], {}, rec({ remote_job_id: 'm1' }));
      const got = await w.results(s, { url: '', sha256: '', items_total: 2, items_failed: 1 });
      expect(sent[1]!.path).toBe(path);
      expect(got.verification).toEqual({ ok: true, sha256: sha256Hex(new TextEncoder().encode(lines)), items_total: 2, items_failed: 1 });
    }
  });
});

describe('verifyLines', () => {
  const body = new Uint8Array([1, 2, 3]);
  it('accepts exactly the wanted custom_ids, each once, and counts the failures', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        (ids, fails) => {
          const lines = ids.map((id, i) => ({ custom_id: id, bad: fails[i] }));
          const v = verifyLines(ids, [...lines].reverse(), (l) => l.bad === true, body);
          expect(v).toEqual({
            ok: true,
            sha256: sha256Hex(body),
            items_total: ids.length,
            items_failed: fails.slice(0, ids.length).filter(Boolean).length,
          });
          // A missing line, a duplicate, a stranger: each refused.
          if (ids.length > 1) expect(verifyLines(ids, lines.slice(1), () => false, body).ok).toBe(false);
          expect(verifyLines(ids, [...lines, lines[0]!], () => false, body).ok).toBe(false);
          expect(verifyLines(ids, [...lines, { custom_id: `${ids.join('')}x` }], () => false, body).ok).toBe(false);
        },
      ),
    );
  });
});

describe('one interface for every API', () => {
  const job = (id: string, over: Record<string, unknown> = {}) => ({
    job_id: id,
    kind: 'batch',
    state: 'queued',
    client_ref: 'op_a',
    trace_id: 'tr_1',
    created_at: new Date(NOW).toISOString(),
    updated_at: new Date(NOW).toISOString(),
    progress: { completed: 0, total: 2 },
    cancel_requested_at: null,
    result: null,
    error: null,
    ...over,
  });
  const problem = (code: string, extra: Record<string, unknown> = {}) => ({
    type: 'about:blank',
    title: code,
    status: 409,
    code,
    ...extra,
  });

  it('every dialect has an adapter that names itself; only native sends keys and per-job webhook URLs', () => {
    for (const d of DIALECTS) {
      const w = wireFor({ dialect: d }, 'http://127.0.0.1:4010');
      expect(w.dialect).toBe(d);
      expect(w.idempotencyKeys).toBe(d === 'native');
      expect(w.webhookPerJob).toBe(d === 'native');
      expect(w.auth).toEqual(d === 'anthropic' ? { header: 'x-api-key' } : 'bearer');
    }
  });

  it('native create: the same keyed body; answers classified (202 id, 200 replay, not done, refused, ambiguous)', async () => {
    const r = rec({ idempotency_key: 'idem_1', input: { n: 1 } });
    const cases: [CallOutcome, string, Record<string, unknown>?][] = [
      [
        answer({ job_id: 'j1', state: 'queued', status_url: '/v1/jobs/j1', created_at: new Date(NOW).toISOString() }, 202),
        'created',
        { jobId: 'j1', job: null, replayed: false },
      ],
      [answer(job('j1'), 200, { 'idempotent-replayed': 'true' }), 'created', { jobId: 'j1', replayed: true }],
      [answer({ nothing: true }, 202), 'unreadable'],
      [answer(problem('rate_limited'), 429), 'not_done'],
      [answer(problem('idempotency_request_in_progress'), 409), 'not_done'],
      [answer(problem('idempotency_key_reused'), 409), 'refused'],
      [answer(problem('internal'), 503), 'ambiguous'],
      [{ kind: 'no_answer', reason: 'timeout', detail: 'x' }, 'ambiguous'],
    ];
    for (const [o, kind, more] of cases) {
      const { s, sent } = step([() => o], {}, r);
      expect(await nativeWire.create(s, 'http://hook/')).toMatchObject({ kind, ...more });
      expect(sent[0]).toMatchObject({
        route: 'create',
        path: '/v1/jobs',
        idempotencyKey: 'idem_1',
        body: { kind: 'batch', input: { n: 1 }, client_ref: 'op_a', webhook_url: 'http://hook/' },
      });
    }
  });

  it('a batch API: 408/409/429 were not executed, and no key or replay is ever claimed', async () => {
    for (const [status, kind] of [
      [409, 'not_done'],
      [408, 'not_done'],
      [400, 'refused'],
      [500, 'ambiguous'],
    ] as const) {
      const { s, sent } = step([() => answer({ error: { message: 'x' } }, status)]);
      expect((await anthropicWire('http://127.0.0.1:4010').create(s, null)).kind).toBe(kind);
      expect(sent[0]!.idempotencyKey).toBeUndefined();
    }
  });

  it('native cancel: 202 accepted; 409 job_terminal with the job ended; a 409 without one is left to the step', async () => {
    const r = rec({ remote_job_id: 'j1' });
    const ended = job('j1', { state: 'failed', error: { code: 'x', message: 'y' } });
    expect(await nativeWire.cancel(step([() => answer(job('j1', { state: 'cancelling' }), 202)], {}, r).s, 'why')).toMatchObject({
      kind: 'accepted',
      job: { state: 'cancelling' },
    });
    expect(await nativeWire.cancel(step([() => answer(problem('job_terminal', { job: ended }), 409)], {}, r).s, 'why')).toMatchObject({
      kind: 'ended',
      job: { state: 'failed' },
    });
    expect((await nativeWire.cancel(step([() => answer(problem('job_terminal'), 409)], {}, r).s, 'why')).kind).toBe('other');
    // A batch API takes a cancel with 200 and the batch.
    const b = { id: 'batch_1', status: 'cancelling', created_at: NOW / 1000, cancelling_at: NOW / 1000 };
    expect(await openaiWire.cancel(step([() => answer(b, 200)], {}, rec({ remote_job_id: 'batch_1' })).s, 'why')).toMatchObject({
      kind: 'accepted',
      job: { job_id: 'batch_1', state: 'cancelling' },
    });
  });

  it('results that are gone: native 410 only; a batch file answering 404 too', async () => {
    const r = rec({ remote_job_id: 'j1' });
    const expected = { url: '/v1/jobs/j1/results', sha256: 'x', items_total: 1, items_failed: 0 };
    expect((await nativeWire.results(step([() => answer(problem('results_expired'), 410)], {}, r).s, expected)).gone).toBe(true);
    expect((await nativeWire.results(step([() => answer(problem('job_not_found'), 404)], {}, r).s, expected)).gone).toBe(false);
    const ended = { ...abatch('m1', 'ended', counts({ succeeded: 2 })), results_url: null };
    const w = anthropicWire('http://127.0.0.1:4010');
    const got = await w.results(
      step([() => answer(ended), () => answer({ error: {} }, 404)], {}, rec({ remote_job_id: 'm1' })).s,
      expected,
    );
    expect(got).toMatchObject({ gone: true, verification: null, location: '/anthropic/v1/messages/batches/m1/results' });
  });

  it('native read: another job in the answer is gone; past a deadline the list route reads the same view', async () => {
    const r = rec({ remote_job_id: 'j1' });
    expect((await nativeWire.read(step([() => answer(job('j2'))], {}, r).s, false)).kind).toBe('gone');
    const { s, sent } = step([() => answer({ data: [job('j1', { state: 'running' })] })], {}, r);
    expect(await nativeWire.read(s, true)).toMatchObject({ kind: 'job', job: { state: 'running' } });
    expect(sent[0]).toMatchObject({ route: 'list', path: '/v1/jobs?client_ref=op_a' });
  });
});
