/**
 * The fake provider behind msw 2: code that calls the global `fetch` with a real-looking provider URL reaches the
 * fake provider unchanged, and the fault plan reaches that code as a real fetch would show it.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import { jobproofHandlers } from '../../../src/fake-provider/msw.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { createInit, getInit, outcome, requests, settle, track } from './helpers.js';

const BASE = 'http://api.example.test';
const clock = new VirtualClock();
const provider: Provider = createProvider({ clock, behavior: { default: { duration_ms: 1000 } } });
const server = setupServer(...jobproofHandlers(provider, { baseUrl: BASE }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => {
  server.close();
  provider.close();
});
beforeEach(() => provider.control.reset());

describe('msw handlers', () => {
  it('global fetch to the base URL reaches the fake provider', async () => {
    const res = await fetch(`${BASE}/v1/jobs`, createInit('msw-ok'));
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    const read = await fetch(`${BASE}/v1/jobs/${job_id}`, getInit());
    expect(read.status).toBe(200);
    expect(((await read.json()) as { job_id: string }).job_id).toBe(job_id);
    expect(requests(provider.journal.all()).map((e) => [e.route, e.effect])).toEqual([
      ['create', 'created'],
      ['status', 'read'],
    ]);
  });

  it('a lose_response reset surfaces as a TypeError from fetch; the job exists and the replay returns it', async () => {
    provider.control.setFaults({ seed: 1, rules: [{ id: 'lose', on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const lost = await outcome(fetch(`${BASE}/v1/jobs`, createInit('msw-lost')));
    expect(lost.ok).toBe(false);
    if (!lost.ok) expect(lost.error).toBeInstanceOf(TypeError);
    const [entry] = requests(provider.journal.all());
    expect(entry).toMatchObject({ effect: 'created', delivery: 'lost', fault: { rule_id: 'lose' } });

    const replay = await fetch(`${BASE}/v1/jobs`, createInit('msw-lost'));
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { job_id: string }).job_id).toBe(entry!.job_id);
  });

  it('a lose_response hang holds fetch until the caller aborts', async () => {
    provider.control.setFaults({ seed: 2, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'hang' } }] });
    const ac = new AbortController();
    const pending = track(fetch(`${BASE}/v1/jobs`, createInit('msw-hang', {}, { signal: ac.signal })));
    for (let i = 0; i < 20 && requests(provider.journal.all()).length === 0; i++) await settle();
    expect(requests(provider.journal.all())[0]).toMatchObject({ effect: 'created', delivery: 'lost' });
    await settle();
    expect(pending.settled()).toBe(false);
    ac.abort();
    const r = await outcome(pending.promise);
    expect(r.ok).toBe(false);
    if (!r.ok) expect((r.error as Error).name).toBe('AbortError');
  });

  it('an injected 503 arrives as an ordinary answer with Retry-After', async () => {
    provider.control.setFaults({
      seed: 3,
      rules: [{ on: 'create', nth: 1, fault: { type: 'fail_before_commit', status: 503, retry_after: 2 } }],
    });
    const res = await fetch(`${BASE}/v1/jobs`, createInit('msw-503'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await fetch(`${BASE}/v1/jobs`, createInit('msw-503'))).status).toBe(202);
  });
});
