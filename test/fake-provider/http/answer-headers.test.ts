/**
 * Every answer carries its ids whichever way it was built (http/answer.ts: json/problem answers carry them from the
 * start, any other answer is stamped after its route), and the journal records the Retry-After the answer has.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/lib/clock.js';
import {
  createBody,
  journalEntryFor,
  newKey,
  startProviderServer,
  type CallResult,
  type ProviderServer,
} from '../../helpers/provider-server.js';

let ps: ProviderServer;

beforeAll(async () => {
  ps = await startProviderServer({ clock: new VirtualClock(), behavior: { default: { duration_ms: 10_000 } } });
});
afterAll(async () => ps.stop());

function expectStamped(res: CallResult, trace: string, requestIdHeader?: string): void {
  const id = res.headers.get('x-request-id');
  expect(id).toMatch(/^req_/);
  expect(res.headers.get('x-trace-id')).toBe(trace);
  if (requestIdHeader) expect(res.headers.get(requestIdHeader)).toBe(id);
  expect(res.headers.get('x-jobproof-loss')).toBeNull();
  const entry = journalEntryFor(ps.provider, res);
  expect(entry).toMatchObject({ request_id: id, status: res.status, trace_id: trace });
  const retryAfter = res.headers.get('retry-after');
  expect(entry.retry_after).toBe(retryAfter === null ? null : Number(retryAfter));
}

it('reads, problems, replays, injected faults and dialect errors all carry their ids; the journal has their Retry-After', async () => {
  const t = { 'x-trace-id': 'tr-1' };
  const key = newKey();
  const created = await ps.call('POST', '/v1/jobs', { headers: { ...t, 'idempotency-key': key }, body: createBody() });
  expect(created.status).toBe(202);
  expectStamped(created, 'tr-1');
  // A replay is a stored answer (its own Headers), stamped after its route.
  const replay = await ps.call('POST', '/v1/jobs', { headers: { ...t, 'idempotency-key': key }, body: createBody() });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expectStamped(replay, 'tr-1');

  const running = await ps.call('GET', `/v1/jobs/${created.json.job_id}`, { headers: t });
  expect(running.headers.get('retry-after')).toMatch(/^\d+$/);
  expectStamped(running, 'tr-1');
  expectStamped(await ps.call('GET', '/v1/jobs/job_nope', { headers: t }), 'tr-1');
  const unauthorized = await ps.call('GET', '/v1/jobs/job_nope', { headers: t, token: null });
  expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');
  expectStamped(unauthorized, 'tr-1');
  expectStamped(await ps.call('GET', '/nowhere', { headers: t }), 'tr-1');

  const plan = { seed: 1, rules: [{ id: 'rl', on: 'status', nth: 1, fault: { type: 'rate_limit', retry_after: 7 } }] };
  expect((await ps.control('PUT', '/_control/faults', { body: plan })).status).toBe(200);
  const limited = await ps.call('GET', `/v1/jobs/${created.json.job_id}`, { headers: t });
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('7');
  expectStamped(limited, 'tr-1');

  const anthropic = await ps.call('POST', '/anthropic/v1/messages/batches', {
    token: null,
    headers: { ...t, 'x-api-key': 'dev-token', 'content-type': 'application/json' },
    body: { requests: [] },
  });
  expect(anthropic.status).toBe(400);
  expectStamped(anthropic, 'tr-1', 'request-id');
  expect(anthropic.json.request_id).toBe(anthropic.headers.get('request-id'));
});
