import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sha256Base64, sha256Hex } from '../../src/lib/canonical-json.js';
import { backoffDelay, nextDelay, parseRetryAfter, POLL_POLICY, RETRY_AFTER_MARGIN_MS } from '../../src/reference-client/backoff.js';
import { sha256FromContentDigest, verifyResults } from '../../src/reference-client/verify-results.js';
import { WebhookReceiver } from '../../src/reference-client/webhook-receiver.js';
import { BUILT_IN_TRAITS } from '../../src/reference-client/wire/traits.js';
import { ACME_SECRET } from './harness.js';

const ok = (id: string) => JSON.stringify({ item_id: id, status: 'succeeded', output: { v: 1 } });
const bad = (id: string) => JSON.stringify({ item_id: id, status: 'failed', error: { code: 'x', message: 'y' } });

function answer(body: string, over: Record<string, string> = {}) {
  const bytes = new TextEncoder().encode(body);
  const headers = new Headers({ 'content-digest': `sha-256=:${sha256Base64(bytes)}:`, ...over });
  return { bytes, headers, expected: { url: '/r', sha256: sha256Hex(bytes), items_total: 3, items_failed: 1 } };
}

describe('verifyResults', () => {
  const body = [ok('1'), bad('2'), ok('3')].join('\n') + '\n';

  it('accepts a body that matches both digests, the schema and the counts', () => {
    const a = answer(body, { 'x-items-total': '3', 'x-items-failed': '1' });
    expect(verifyResults(a.bytes, a.headers, a.expected)).toEqual({ ok: true, sha256: a.expected.sha256, items_total: 3, items_failed: 1 });
  });

  it.each([
    ['a Content-Digest mismatch', (a: ReturnType<typeof answer>) => a.headers.set('content-digest', 'sha-256=:AAAA:'), /Content-Digest/],
    ['a missing Content-Digest', (a: ReturnType<typeof answer>) => a.headers.delete('content-digest'), /Content-Digest/],
    ["a mismatch with the job's result.sha256", (a: ReturnType<typeof answer>) => (a.expected.sha256 = '0'.repeat(64)), /result\.sha256/],
    ['a total different from the job', (a: ReturnType<typeof answer>) => (a.expected.items_total = 4), /items/],
    ['a failed count different from the job', (a: ReturnType<typeof answer>) => (a.expected.items_failed = 0), /failed items/],
    ['X-Items-Total disagreeing', (a: ReturnType<typeof answer>) => a.headers.set('x-items-total', '9'), /X-Items-Total/],
  ])('refuses %s', (_n, mutate, reason) => {
    const a = answer(body);
    mutate(a);
    const v = verifyResults(a.bytes, a.headers, a.expected);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason).toMatch(reason);
  });

  it.each([
    ['an error row', JSON.stringify({ item_id: '2', status: 'error', error: { code: 'e', message: 'm' } })],
    ['a row with extra fields', JSON.stringify({ item_id: '2', status: 'succeeded', output: {}, secret: 1 })],
    ['a failed row without error', JSON.stringify({ item_id: '2', status: 'failed' })],
    ['a non-JSON line', 'oops'],
  ])('refuses %s even when every digest matches', (_n, line) => {
    const a = answer([ok('1'), line, ok('3')].join('\n'));
    expect(verifyResults(a.bytes, a.headers, a.expected).ok).toBe(false);
  });

  it('reads sha-256 out of a multi-algorithm Content-Digest', () => {
    expect(sha256FromContentDigest('sha-512=:abc=:, sha-256=:xyz=:')).toBe('xyz=');
    expect(sha256FromContentDigest('md5=:abc:')).toBeNull();
  });
});

describe('backoff', () => {
  it('is capped, jittered within [d/2, d], and replayable', () => {
    for (let a = 0; a < 40; a++) {
      const d = Math.min(POLL_POLICY.capMs, POLL_POLICY.baseMs * 2 ** a);
      const v = backoffDelay(POLL_POLICY, a, 'op_1');
      expect(v).toBeGreaterThanOrEqual(d / 2);
      expect(v).toBeLessThanOrEqual(d);
      expect(backoffDelay(POLL_POLICY, a, 'op_1')).toBe(v);
    }
    expect(backoffDelay(POLL_POLICY, 3, 'op_1')).not.toBe(backoffDelay(POLL_POLICY, 3, 'op_2'));
  });

  it('never undercuts Retry-After', () => {
    expect(nextDelay(POLL_POLICY, 0, 'x', 30_000)).toBe(30_000 + RETRY_AFTER_MARGIN_MS);
  });

  it('parses delay-seconds and HTTP-dates, ignores garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe('WebhookReceiver', () => {
  const NATIVE = BUILT_IN_TRAITS.native.webhookJobId!;
  function delivery(id: string, type: string, jobId = 'job_1', secret = ACME_SECRET, data: object = { job_id: jobId }) {
    const body = JSON.stringify({ id, type, created_at: 'x', data });
    const ts = new Date();
    return new Request('http://127.0.0.1/', {
      method: 'POST',
      body,
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(id, ts, body),
      },
    });
  }

  it('verifies, drops duplicates by webhook-id, ignores progress, and only ever asks for a read', async () => {
    const seen: string[] = [];
    const r = new WebhookReceiver(ACME_SECRET, { onEvent: (jobId, eventId) => seen.push(`${jobId}/${eventId}`) }, NATIVE);
    expect((await r.handle(delivery('evt_1', 'job.running'))).status).toBe(204);
    expect((await r.handle(delivery('evt_1', 'job.running'))).status).toBe(204);
    expect((await r.handle(delivery('evt_2', 'job.progress'))).status).toBe(204);
    expect((await r.handle(delivery('evt_3', 'job.succeeded'))).status).toBe(204);
    expect(seen).toEqual(['job_1/evt_1', 'job_1/evt_3']);
  });

  it('refuses a bad signature and changes nothing', async () => {
    const seen: string[] = [];
    const r = new WebhookReceiver(ACME_SECRET, { onEvent: (j) => seen.push(j) }, NATIVE);
    const other = 'whsec_' + Buffer.from('another secret entirely').toString('base64');
    expect((await r.handle(delivery('evt_9', 'job.succeeded', 'job_1', other))).status).toBe(401);
    expect(seen).toEqual([]);
  });

  it('takes the job id where the wire says its events carry it: an OpenAI batch event names the batch as data.id', async () => {
    const seen: string[] = [];
    const r = new WebhookReceiver(
      ACME_SECRET,
      { onEvent: (j, _e, type) => seen.push(`${j} ${type}`) },
      BUILT_IN_TRAITS.openai.webhookJobId!,
    );
    expect((await r.handle(delivery('evt_1', 'batch.completed', '', ACME_SECRET, { id: 'batch_7' }))).status).toBe(204);
    // A native-shaped event names no job where an OpenAI event does: nothing to read sooner.
    expect((await r.handle(delivery('evt_2', 'job.succeeded', 'job_1'))).status).toBe(204);
    expect(seen).toEqual(['batch_7 batch.completed']);
  });
});
