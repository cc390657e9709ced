import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/canonical-json.js';
import type { CallOutcome, CallSpec } from '../../src/reference-client/http.js';
import type { OperationRow } from '../../src/reference-client/types.js';
import type { WireStep } from '../../src/reference-client/wire/adapter.js';
import { anthropicJob, anthropicWire } from '../../src/reference-client/wire/anthropic.js';
import { openaiJob, openaiWire } from '../../src/reference-client/wire/openai.js';
import { verifyLines } from '../../src/reference-client/wire/result-lines.js';

/** The dialect adapters' own decisions, without a server: job views, recovery by listing, results verification. */
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

function answer(json: unknown, status = 200): CallOutcome {
  return {
    kind: 'answer',
    status,
    headers: new Headers(),
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
      const got = await w.results(s);
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
