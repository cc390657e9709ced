/**
 * The engine's lean create and step path (issue 13): the result descriptor is computed when a job succeeds, a create
 * keeps the known earliest due time instead of querying it, and jobs without a webhook skip the unobservable progress
 * step. Each is checked by what a client or the journal can see.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { resultDescriptor } from '../../../src/fake-provider/engine/results.js';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { makeCall, newKey } from '../../helpers/provider-server.js';

let provider: Provider | undefined;
afterEach(() => provider?.close());

function start(clock: VirtualClock) {
  provider = createProvider({
    clock,
    behavior: { default: { duration_ms: 2_000, items: 4, items_failed: 1 }, by_kind: { quick: { duration_ms: 40 } } },
  });
  return makeCall('http://jobproof.test', provider.fetch);
}

describe('lean create and step path', () => {
  it('shows, once the job succeeded, the result descriptor of its id and behaviour, and the results hash to it', async () => {
    const clock = new VirtualClock();
    const call = start(clock);
    const created = await call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: { kind: 'report', input: {} } });
    const id = created.json.job_id as string;
    expect((await call('GET', `/v1/jobs/${id}`)).json.result).toBeNull();
    await clock.advance(2_000);
    const done = await call('GET', `/v1/jobs/${id}`);
    expect(done.json.state).toBe('succeeded');
    const behavior = provider!.control.behavior().default;
    expect(done.json.result).toEqual(resultDescriptor(id, behavior));
    const results = await call('GET', done.json.result.url);
    expect(createHash('sha256').update(results.text).digest('hex')).toBe(done.json.result.sha256);
  });

  it('moves a job created after a later one along on the timer alone (no request in between)', async () => {
    const clock = new VirtualClock();
    const call = start(clock);
    const slow = await call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: { kind: 'report', input: {} } });
    const quick = await call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: { kind: 'quick', input: {} } });
    await clock.advance(40);
    const states = Object.fromEntries(provider!.jobs().map((j) => [j.job_id, j.state]));
    expect(states).toEqual({ [slow.json.job_id]: 'queued', [quick.json.job_id]: 'succeeded' });
  });

  it('journals the same transitions at the same times with and without a webhook', async () => {
    const clock = new VirtualClock();
    const call = start(clock);
    const t0 = clock.now();
    const ids: string[] = [];
    for (const webhook_url of [undefined, 'http://127.0.0.1:9/hook']) {
      const body = { kind: 'report', input: {}, ...(webhook_url ? { webhook_url } : {}) };
      ids.push((await call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body })).json.job_id);
    }
    await clock.advance(2_500);
    const transitions = (id: string) =>
      provider!.journal
        .all()
        .filter((e) => e.type === 'transition' && e.job_id === id)
        .map((e) => (e.type === 'transition' ? [e.to, Date.parse(e.at) - t0] : null));
    const expected = [
      ['queued', 0],
      ['running', 100],
      ['succeeded', 2_000],
    ];
    expect(transitions(ids[0]!)).toEqual(expected);
    expect(transitions(ids[1]!)).toEqual(expected);
  });
});
