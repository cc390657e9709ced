import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobSchema } from '../../../src/contract/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { journalEntryFor, newKey, problemOf, startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';

let ps: ProviderServer;
const advance = async (ms: number) => expect((await ps.control('POST', '/_control/clock', { body: { advance_ms: ms } })).status).toBe(200);

/** Kinds, each with its own behaviour: duration 10 s, commit point at 5 s, a cancel takes 200 ms. */
const BEHAVIOR = {
  default: { duration_ms: 10_000, commit_point: 0.5, cancel_ms: 200 },
  by_kind: {
    stubborn: { duration_ms: 10_000, cancel: 'ignore' as const },
    failing: { duration_ms: 10_000, commit_point: 0.5, outcome: 'failed' as const },
    forever: { duration_ms: 10_000, outcome: 'never' as const, cancel_ms: 300 },
  },
};

async function create(kind = 'report', token = 'dev-token') {
  const res = await ps.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': newKey() }, body: { kind, input: {} } });
  expect(res.status).toBe(202);
  return res.json.job_id as string;
}
const cancel = (id: string, opts: Parameters<ProviderServer['call']>[2] = {}) => ps.call('POST', `/v1/jobs/${id}/cancel`, opts);
const read = async (id: string) => (await ps.call('GET', `/v1/jobs/${id}`)).json;
const transitions = (id: string) => ps.provider.journal.all().filter((e) => e.type === 'transition' && e.job_id === id);

beforeAll(async () => {
  ps = await startProviderServer({ clock: new VirtualClock(), behavior: BEHAVIOR });
});
afterAll(async () => ps.stop());

describe('POST /v1/jobs/{id}/cancel', () => {
  it('before the commit point: 202 cancelling with cancel_requested_at, then cancelled cancel_ms later', async () => {
    const id = await create();
    await advance(1_000);
    const res = await cancel(id, { body: { reason: 'user asked' } });
    expect(res.status).toBe(202);
    const job = JobSchema.strict().parse(res.json);
    expect(job.state).toBe('cancelling');
    expect(job.cancel_requested_at).toBe(new Date(ps.provider.clock.now()).toISOString());
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(journalEntryFor(ps.provider, res)).toMatchObject({ effect: 'cancel_requested', job_state: 'cancelling', job_id: id });

    await advance(199);
    expect((await read(id)).state).toBe('cancelling');
    await advance(1);
    const done = await read(id);
    expect(done.state).toBe('cancelled');
    expect(done.cancel_requested_at).toBe(job.cancel_requested_at);
    expect(done.result).toBeNull();
    expect(transitions(id).map((t) => t.type === 'transition' && t.to)).toEqual(['queued', 'running', 'cancelling', 'cancelled']);
    // It stays cancelled even when its original finish time passes.
    await advance(20_000);
    expect((await read(id)).state).toBe('cancelled');
  });

  it('repeating it is harmless: same answer, journal effect cancel_repeated, no second transition', async () => {
    const id = await create();
    await advance(500);
    const first = await cancel(id);
    const again = await cancel(id);
    expect(again.status).toBe(202);
    expect(again.text).toBe(first.text);
    expect(journalEntryFor(ps.provider, again)).toMatchObject({ effect: 'cancel_repeated', job_state: 'cancelling' });
    await advance(100);
    const third = await cancel(id, { headers: { 'idempotency-key': 'cancel-key-1' } });
    expect(third.json.state).toBe('cancelling');
    expect(third.json.cancel_requested_at).toBe(first.json.cancel_requested_at);
    expect(journalEntryFor(ps.provider, third)).toMatchObject({ effect: 'cancel_repeated', idempotency_key: 'cancel-key-1' });
    expect(transitions(id).filter((t) => t.type === 'transition' && t.to === 'cancelling')).toHaveLength(1);
    // The cancel was not re-scheduled by the repeats: it still lands cancel_ms after the first request.
    await advance(100);
    expect((await read(id)).state).toBe('cancelled');
  });

  it('after the commit point: the cancel is recorded but loses; the job ends with its outcome', async () => {
    const id = await create();
    await advance(6_000);
    const res = await cancel(id);
    expect(res.status).toBe(202);
    expect(res.json.state).toBe('cancelling');
    await advance(4_000);
    const done = await read(id);
    expect(done.state).toBe('succeeded');
    expect(done.cancel_requested_at).toBe(res.json.cancel_requested_at);
    expect(done.result).not.toBeNull();
    const last = transitions(id).at(-1)!;
    expect(last).toMatchObject({ from: 'cancelling', to: 'succeeded' });

    const failing = await create('failing');
    await advance(7_000);
    await cancel(failing);
    await advance(3_000);
    const f = await read(failing);
    expect(f.state).toBe('failed');
    expect(f.error).toEqual({ code: expect.any(String), message: expect.any(String) });
  });

  it('a job that never finishes is always cancellable', async () => {
    const id = await create('forever');
    await advance(60_000);
    expect((await read(id)).state).toBe('running');
    await cancel(id);
    await advance(300);
    expect((await read(id)).state).toBe('cancelled');
  });

  it('cancel: "ignore" keeps the job cancelling for ever', async () => {
    const id = await create('stubborn');
    await advance(100);
    expect((await cancel(id)).json.state).toBe('cancelling');
    await advance(7 * 24 * 3600 * 1000);
    const j = await ps.call('GET', `/v1/jobs/${id}`);
    expect(j.json.state).toBe('cancelling');
    expect(j.headers.get('retry-after')).not.toBeNull();
    expect((await cancel(id)).status).toBe(202);
  });

  it('a terminal job: 409 job_terminal with the Job', async () => {
    const id = await create();
    await advance(10_000);
    const res = await cancel(id);
    const p = problemOf(res, 409, 'job_terminal');
    expect(JobSchema.strict().parse(p.job)).toMatchObject({ job_id: id, state: 'succeeded', cancel_requested_at: null });
    expect(journalEntryFor(ps.provider, res)).toMatchObject({ effect: 'none', code: 'job_terminal', job_state: 'succeeded' });

    const cancelled = await create();
    await cancel(cancelled);
    await advance(200);
    expect(problemOf(await cancel(cancelled), 409, 'job_terminal').job.state).toBe('cancelled');
  });

  it('unknown job 404; bad body 400; missing token 401', async () => {
    problemOf(await cancel('job_nope'), 404, 'job_not_found');
    const id = await create();
    problemOf(await cancel(id, { body: '{oops', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    const bad = problemOf(await cancel(id, { body: { reason: 42 } }), 400, 'invalid_request');
    expect(bad.errors).toEqual([{ path: 'reason', message: expect.any(String) }]);
    problemOf(await cancel(id, { body: { reason: 'x', extra: true } }), 400, 'invalid_request');
    problemOf(await cancel(id, { token: null }), 401, 'unauthorized');
    // None of those touched the job.
    expect((await read(id)).state).not.toBe('cancelling');
    // An empty body is fine.
    expect((await cancel(id, { body: '' })).status).toBe(202);
  });

  it('answers other methods on the cancel route with 405', async () => {
    const id = await create();
    const res = await ps.call('GET', `/v1/jobs/${id}/cancel`);
    problemOf(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
  });
});
