/**
 * The in-process fetch fails as a real fetch fails: a caller whose signal aborts while the provider holds its request
 * (a `delay` fault) is rejected at that moment with the signal's reason, not handed the answer when the hold ends;
 * the request still executes at the provider and is journalled as an answer nobody read.
 */
import { describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/fake-provider/index.js';
import { settle, VirtualClock } from '../../../src/lib/clock.js';
import { seededIds } from '../../../src/lib/ids.js';
import { controlInit, createInit, requests } from '../faults/helpers.js';

function heldCreate() {
  const clock = new VirtualClock();
  const p = createProvider({ clock, ids: seededIds(3), behavior: { default: { duration_ms: 400 } } });
  return { clock, p };
}

describe('in-process fetch and an aborted signal', () => {
  it('rejects when the signal aborts during a held create; the create still executes, journalled lost', async () => {
    const { clock, p } = heldCreate();
    await p.fetch('/_control/faults', controlInit('PUT', { rules: [{ on: 'create', nth: 1, fault: { type: 'delay', ms: 5000 } }] }));
    const ac = new AbortController();
    let settledAt: number | null = null;
    const reason = new Error('client timeout');
    const init = createInit('key-held', {}, { signal: ac.signal });
    const pending = p
      .fetch('/v1/jobs', { ...init, headers: { ...(init.headers as Record<string, string>), 'x-worker-id': 'worker-7' } })
      .then(
        (res) => ({ res }),
        (err: unknown) => ({ err }),
      );
    void pending.then(() => {
      settledAt = clock.now();
    });
    await clock.advance(2000);
    await settle();
    expect(settledAt).toBeNull();
    // Who sent the held request: what a scenario's `request_held` with a worker waits for.
    expect([p.heldRequests(), p.heldBy()]).toEqual([1, ['worker-7']]);
    const abortedAt = clock.now();
    ac.abort(reason);
    await settle();
    expect(settledAt).toBe(abortedAt);
    expect(await pending).toEqual({ err: reason });
    // The hold ends; the create executes and its answer reaches nobody.
    await clock.advance(3000);
    await settle();
    const create = requests(p.journal.all()).find((e) => e.route === 'create');
    expect(create?.delivery).toBe('lost');
    expect(create?.job_id).toMatch(/^job_/);
    expect(p.jobs()).toHaveLength(1);
    expect([p.heldRequests(), p.heldBy()]).toEqual([0, []]);
    p.close();
  });

  it('hands the answer over when the hold ends before any abort', async () => {
    const { clock, p } = heldCreate();
    await p.fetch('/_control/faults', controlInit('PUT', { rules: [{ on: 'create', nth: 1, fault: { type: 'delay', ms: 1000 } }] }));
    const ac = new AbortController();
    const pending = p.fetch('/v1/jobs', createInit('key-held', {}, { signal: ac.signal }));
    await clock.advance(1000);
    const res = await pending;
    ac.abort();
    expect(res.status).toBe(202);
    expect(((await res.json()) as { job_id: string }).job_id).toMatch(/^job_/);
    expect(requests(p.journal.all()).find((e) => e.route === 'create')?.delivery).toBe('delayed');
    p.close();
  });
});
