/**
 * Webhook delivery to a real receiver on loopback, every delivery checked with the official Standard Webhooks
 * verifier, and retries after a failed attempt, each attempt in the journal.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookEventSchema, type WebhookEntry } from '../../../src/contract/index.js';
import { newKey, startProviderServer, waitFor, type ProviderServer } from '../../helpers/provider-server.js';

const ACME_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A receiver that records every delivery and answers with `answer(n)` (n = 1-based delivery count). */
async function startReceiver(answer: (n: number, body: string) => number = () => 204) {
  const deliveries: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = answer(deliveries.length + 1, body);
      deliveries.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, deliveries, close: () => new Promise<void>((r) => server.close(() => r())) };
}

function verify(d: Delivery, secret = ACME_SECRET) {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.headers)) if (typeof v === 'string') headers[k] = v;
  const payload = new Webhook(secret).verify(d.body, headers) as { id: string; type: string };
  return WebhookEventSchema.parse(payload);
}

let ps: ProviderServer;
const receivers: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  ps = await startProviderServer({ behavior: { default: { duration_ms: 400, items: 4 } }, webhooks: { backoffMs: 50 } });
});
afterEach(async () => {
  await ps.provider.idle();
  ps.provider.control.clearFaults();
});
afterAll(async () => {
  await ps.stop();
  for (const r of receivers) await r.close();
});

async function createWithHook(url: string, token = 'dev-token') {
  const res = await ps.call('POST', '/v1/jobs', {
    token,
    headers: { 'idempotency-key': newKey() },
    body: { kind: 'report', input: {}, webhook_url: url },
  });
  expect(res.status).toBe(202);
  return res.json.job_id as string;
}
const attempts = (jobId: string) => ps.provider.journal.all().filter((e): e is WebhookEntry => e.type === 'webhook' && e.job_id === jobId);

describe('webhooks', () => {
  it('delivers job.running … job.succeeded, each signed so the official verifier accepts it, webhook-id = event id', async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    const jobId = await createWithHook(rx.url);
    await waitFor(() => rx.deliveries.some((d) => JSON.parse(d.body).type === 'job.succeeded'));
    await ps.provider.idle();
    const events = rx.deliveries.map((d) => {
      const e = verify(d);
      expect(d.headers['webhook-id']).toBe(e.id);
      expect(e.id).toMatch(/^evt_/);
      expect(d.headers['webhook-timestamp']).toMatch(/^\d+$/);
      expect(Math.abs(Number(d.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
      expect(d.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(d.headers['content-type']).toMatch(/^application\/json/);
      expect(e.data.job_id).toBe(jobId);
      return e;
    });
    // Without faults they leave in order; sort by event time anyway so a slow receiver cannot make this flaky.
    events.sort((a, b) => a.created_at.localeCompare(b.created_at));
    expect(events.map((e) => e.type)).toEqual(['job.running', 'job.progress', 'job.succeeded']);
    expect(events.map((e) => e.data.state)).toEqual(['running', 'running', 'succeeded']);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const done = events.at(-1)!;
    expect(done.data.state).toBe('succeeded');
    expect(done.data.result).not.toBeNull();
    // The final status read agrees with the event.
    expect((await ps.call('GET', `/v1/jobs/${jobId}`)).json).toMatchObject({ state: 'succeeded', result: done.data.result });
    // Every delivery is in the journal.
    const journal = attempts(jobId);
    expect(journal.map((a) => [a.event_id, a.attempt, a.outcome, a.status]).sort()).toEqual(
      events.map((e) => [e.id, 1, 'delivered', 204]).sort(),
    );
    // A wrong secret does not verify.
    expect(() => verify(rx.deliveries[0]!, 'whsec_' + Buffer.from('not the secret').toString('base64'))).toThrow();
    // Tampering with the body breaks the signature.
    expect(() => verify({ ...rx.deliveries[0]!, body: rx.deliveries[0]!.body.replace('job.running', 'job.failed') })).toThrow();
  });

  it('delivers cancelling and cancelled events for a cancelled job', async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    await ps.control('PUT', '/_control/behavior', { body: { default: { duration_ms: 60_000, cancel_ms: 50 } } });
    try {
      const jobId = await createWithHook(rx.url);
      await waitFor(() => rx.deliveries.length >= 1);
      await ps.call('POST', `/v1/jobs/${jobId}/cancel`);
      await waitFor(() => rx.deliveries.some((d) => JSON.parse(d.body).type === 'job.cancelled'));
      const events = rx.deliveries.map((d) => verify(d)).sort((a, b) => a.created_at.localeCompare(b.created_at));
      expect(events.map((e) => e.type)).toEqual(['job.running', 'job.cancelling', 'job.cancelled']);
      expect(events[1]!.data).toMatchObject({ state: 'cancelling', cancel_requested_at: expect.any(String) });
    } finally {
      await ps.control('PUT', '/_control/behavior', { body: { default: { duration_ms: 400, items: 4 } } });
    }
  });

  it('signs with the tenant’s own secret', async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    await createWithHook(rx.url, 'other-tenant-token');
    await waitFor(() => rx.deliveries.some((d) => JSON.parse(d.body).type === 'job.succeeded'));
    const globex = ps.provider.tokens.webhook_secrets.globex!;
    for (const d of rx.deliveries) {
      expect(verify(d, globex).id).toBe(d.headers['webhook-id']);
      expect(() => verify(d, ACME_SECRET)).toThrow();
    }
  });

  it('retries a delivery that got a 500 (backoff), with every attempt in the journal', async () => {
    // The first delivery of each event type fails; its retry succeeds.
    const failedOnce = new Set<string>();
    const rx = await startReceiver((_n, body) => {
      const id = JSON.parse(body).id as string;
      if (failedOnce.has(id)) return 200;
      failedOnce.add(id);
      return 500;
    });
    receivers.push(rx);
    const jobId = await createWithHook(rx.url);
    await waitFor(() => rx.deliveries.some((d) => JSON.parse(d.body).type === 'job.succeeded' && d.status === 200), 15_000);
    await ps.provider.idle();
    for (const d of rx.deliveries) verify(d);
    const journal = attempts(jobId);
    const byEvent = new Map<string, WebhookEntry[]>();
    for (const a of journal) byEvent.set(a.event_id, [...(byEvent.get(a.event_id) ?? []), a]);
    expect(byEvent.size).toBe(3);
    for (const [eventId, list] of byEvent) {
      expect(list.map((a) => [a.attempt, a.outcome, a.status])).toEqual([
        [1, 'failed', 500],
        [2, 'delivered', 200],
      ]);
      // Both attempts carried the same event id and the same body.
      const bodies = rx.deliveries.filter((d) => d.headers['webhook-id'] === eventId).map((d) => d.body);
      expect(bodies).toHaveLength(2);
      expect(bodies[0]).toBe(bodies[1]);
    }
    expect(journal).toHaveLength(rx.deliveries.length);
  });

  it('gives up after maxAttempts on a receiver that never answers 2xx, journalling each attempt', async () => {
    const rx = await startReceiver(() => 503);
    receivers.push(rx);
    const local = await startProviderServer({
      behavior: { default: { duration_ms: 50, items: 0 } },
      webhooks: { backoffMs: 10, maxAttempts: 3 },
    });
    try {
      const res = await local.call('POST', '/v1/jobs', {
        headers: { 'idempotency-key': newKey() },
        body: { kind: 'report', input: {}, webhook_url: rx.url },
      });
      const jobId = res.json.job_id as string;
      const all = () => local.provider.journal.all().filter((e): e is WebhookEntry => e.type === 'webhook' && e.job_id === jobId);
      // Given up: both events are marked failed, so no further attempt can be scheduled.
      const statuses = () =>
        local.provider.core.db
          .prepare<[string], { status: string }>('SELECT status FROM webhook_events WHERE job_id = ?')
          .all(jobId)
          .map((r) => r.status);
      await waitFor(() => statuses().length === 2 && statuses().every((s) => s === 'failed'), 10_000);
      await local.provider.idle();
      const entries = all();
      expect(entries).toHaveLength(6);
      for (const type of ['job.running', 'job.succeeded']) {
        expect(entries.filter((e) => e.event_type === type).map((e) => [e.attempt, e.outcome, e.status])).toEqual([
          [1, 'failed', 503],
          [2, 'failed', 503],
          [3, 'failed', 503],
        ]);
      }
    } finally {
      await local.stop();
    }
  });

  it('journals a delivery to a closed port as a failed attempt with an error', async () => {
    const rx = await startReceiver();
    await rx.close();
    const local = await startProviderServer({
      behavior: { default: { duration_ms: 50, items: 0 } },
      webhooks: { backoffMs: 10, maxAttempts: 2 },
    });
    try {
      const res = await local.call('POST', '/v1/jobs', {
        headers: { 'idempotency-key': newKey() },
        body: { kind: 'report', input: {}, webhook_url: rx.url },
      });
      const jobId = res.json.job_id as string;
      const all = () => local.provider.journal.all().filter((e): e is WebhookEntry => e.type === 'webhook' && e.job_id === jobId);
      await waitFor(() => all().length === 4, 10_000);
      await local.provider.idle();
      for (const e of all()) expect(e).toMatchObject({ outcome: 'failed', status: null, error: expect.any(String) });
      // The job itself is unaffected: webhooks never replace a status read.
      expect((await local.call('GET', `/v1/jobs/${jobId}`)).json.state).toBe('succeeded');
    } finally {
      await local.stop();
    }
  });
});
