/**
 * Webhook faults with a receiver: a real node:http receiver (real clock, provider served over HTTP) and an
 * in-process receiver reached through `webhookFetch` (virtual clock). What arrives, in which order and when, and
 * what the journal records for each attempt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/lib/clock.js';
import { createProvider, serve, type Provider, type RunningServer } from '../../../src/fake-provider/index.js';
import type { FaultPlanInput } from '../../../src/contract/index.js';
import { waitFor } from '../../helpers/provider-server.js';
import { createInit, inProcessReceiver, startReceiver, webhookEntries, type ReceivedWebhook } from './helpers.js';

/** Event types of a job with items that succeeds (duration ≥ 2 ms): running, progress, succeeded. */
const LIFECYCLE = ['job.running', 'job.progress', 'job.succeeded'];

function countById(received: ReceivedWebhook[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of received) m.set(r.id, (m.get(r.id) ?? 0) + 1);
  return m;
}

describe('webhook faults with a real node:http receiver', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const f of cleanup.reverse()) await f();
    cleanup = [];
  });

  async function run(plan: FaultPlanInput): Promise<{ provider: Provider; received: ReceivedWebhook[]; jobId: string }> {
    const receiver = await startReceiver();
    const provider = createProvider({
      behavior: { default: { duration_ms: 150 } },
      faults: plan,
      webhooks: { backoffMs: 50, reorderSpacingMs: 150 },
    });
    const server: RunningServer = await serve(provider, { port: 0 });
    cleanup.push(
      () => receiver.close(),
      () => server.close(),
      () => provider.close(),
    );
    const res = await fetch(`${server.url}/v1/jobs`, createInit('key-hook', { webhook_url: receiver.url }));
    expect(res.status).toBe(202);
    const jobId = ((await res.json()) as { job_id: string }).job_id;
    // Settled when the job is final and no delivery is due or on the wire.
    await waitFor(() => provider.core.jobs.get(jobId)?.state === 'succeeded', 5000);
    await waitFor(() => pendingWebhooks(provider) === 0, 5000);
    await provider.idle();
    return { provider, received: receiver.received, jobId };
  }

  it('duplicate: each event arrives copies + 1 times under the same webhook-id', async () => {
    const { provider, received } = await run({ seed: 4, rules: [{ id: 'dup', on: 'webhook', fault: { type: 'duplicate', copies: 2 } }] });
    expect(new Set(received.map((r) => r.type))).toEqual(new Set(LIFECYCLE));
    const counts = countById(received);
    expect(counts.size).toBe(3);
    for (const n of counts.values()) expect(n).toBe(3);
    for (const r of received) expect(r.headers['webhook-signature']).toMatch(/^v1,/);
    const entries = webhookEntries(provider.journal.all());
    expect(entries).toHaveLength(9);
    for (const e of entries) expect(e).toMatchObject({ outcome: 'delivered', status: 204, fault: { rule_id: 'dup', type: 'duplicate' } });
  });

  it('forge: beside the real event, a delivery claiming the job failed, unsigned or wrongly signed, journalled as forged', async () => {
    const { provider, received, jobId } = await run({
      seed: 26,
      rules: [
        { id: 'unsigned', on: 'webhook', nth: 1, fault: { type: 'forge', signature: 'none', claim: 'failed' } },
        { id: 'wrong', on: 'webhook', nth: 2, fault: { type: 'forge', signature: 'wrong_secret', claim: 'failed' } },
      ],
    });
    const real = received.filter((r) => r.type !== 'job.failed');
    expect(real.map((r) => r.type)).toEqual(LIFECYCLE);
    for (const r of real) expect(r.headers['webhook-signature']).toMatch(/^v1,/);
    const forged = received.filter((r) => r.type === 'job.failed');
    expect(forged.map((r) => r.job_id)).toEqual([jobId, jobId]);
    expect(forged.map((r) => r.headers['webhook-signature'] ?? null)).toEqual([null, expect.stringMatching(/^v1,/)]);
    const entries = webhookEntries(provider.journal.all());
    expect(entries.filter((e) => e.forged).map((e) => [e.event_type, e.forged, e.attempt, e.fault])).toEqual([
      ['job.failed', 'unsigned', 1, { rule_id: 'unsigned', type: 'forge' }],
      ['job.failed', 'wrong_secret', 1, { rule_id: 'wrong', type: 'forge' }],
    ]);
    // The real events carry no fault: the forgery is a delivery of its own.
    for (const e of entries.filter((x) => !x.forged)) expect(e.fault).toBeNull();
  });

  it('reorder (every event): the events arrive newest first, after the final one', async () => {
    const { provider, received } = await run({ seed: 18, rules: [{ id: 'reverse', on: 'webhook', fault: { type: 'reorder' } }] });
    expect(received.map((r) => r.type)).toEqual([...LIFECYCLE].reverse());
    const entries = webhookEntries(provider.journal.all());
    expect(entries.map((e) => [e.event_type, e.outcome, e.fault?.rule_id])).toEqual([
      ['job.succeeded', 'delivered', 'reverse'],
      ['job.progress', 'delivered', 'reverse'],
      ['job.running', 'delivered', 'reverse'],
    ]);
  });

  it('drop: nothing arrives; the journal says dropped', async () => {
    const { provider, received } = await run({ seed: 19, rules: [{ id: 'drop-all', on: 'webhook', fault: { type: 'drop' } }] });
    expect(received).toEqual([]);
    const entries = webhookEntries(provider.journal.all());
    expect(entries.map((e) => [e.event_type, e.outcome, e.attempt, e.fault?.rule_id])).toEqual(
      LIFECYCLE.map((t) => [t, 'dropped', 0, 'drop-all']),
    );
  });

  it('delay: the delayed event still arrives, journalled with its fault', async () => {
    const { provider, received } = await run({
      seed: 20,
      rules: [{ id: 'late-running', on: 'webhook', nth: 1, fault: { type: 'delay', ms: 600 } }],
    });
    // Held 600 ms past its due time, it is the last to arrive.
    expect(received.map((r) => r.type).sort()).toEqual([...LIFECYCLE].sort());
    expect(received.at(-1)!.type).toBe('job.running');
    const running = webhookEntries(provider.journal.all()).find((e) => e.event_type === 'job.running');
    expect(running).toMatchObject({ outcome: 'delivered', fault: { rule_id: 'late-running', type: 'delay' } });
  });
});

function pendingWebhooks(provider: Provider): number {
  const row = provider.core.db.prepare(`SELECT COUNT(*) AS n FROM webhook_events WHERE status IN ('pending', 'sending', 'held')`).get() as {
    n: number;
  };
  return row.n;
}

describe('webhook faults on a virtual clock (webhookFetch to an in-process receiver)', () => {
  let provider: Provider | undefined;
  afterEach(() => provider?.close());

  /** Job of 1000 ms created at t0: running at +100, progress at +500, succeeded at +1000. */
  async function start(plan: FaultPlanInput): Promise<{ clock: VirtualClock; received: ReceivedWebhook[]; t0: number }> {
    const clock = new VirtualClock();
    const receiver = inProcessReceiver(clock);
    provider = createProvider({ clock, behavior: { default: { duration_ms: 1000 } }, faults: plan, webhookFetch: receiver.fetch });
    const res = await provider.fetch('/v1/jobs', createInit('key-hook', { webhook_url: 'http://receiver.test/hooks' }));
    expect(res.status).toBe(202);
    return { clock, received: receiver.received, t0: clock.now() };
  }

  it('duplicate: copies + 1 deliveries of the same webhook-id, at the event time', async () => {
    const { clock, received, t0 } = await start({
      seed: 4,
      rules: [{ id: 'dup', on: 'webhook', fault: { type: 'duplicate', copies: 1 } }],
    });
    await clock.advance(2000);
    await provider!.idle();
    expect(received.map((r) => [r.type, r.at - t0])).toEqual([
      ['job.running', 100],
      ['job.running', 100],
      ['job.progress', 500],
      ['job.progress', 500],
      ['job.succeeded', 1000],
      ['job.succeeded', 1000],
    ]);
    expect([...countById(received).values()]).toEqual([2, 2, 2]);
    expect(webhookEntries(provider!.journal.all()).every((e) => e.outcome === 'delivered' && e.fault?.rule_id === 'dup')).toBe(true);
  });

  it('reorder (first two events): held until the final event, then released newest first', async () => {
    const { clock, received, t0 } = await start({
      seed: 18,
      rules: [{ id: 'hold', on: 'webhook', nth: [1, 2], fault: { type: 'reorder' } }],
    });
    await clock.advance(999);
    expect(received).toEqual([]);
    await clock.advance(1000);
    await provider!.idle();
    expect(received.map((r) => r.type)).toEqual(['job.succeeded', 'job.progress', 'job.running']);
    expect(received[0]!.at - t0).toBe(1000);
    expect(received[1]!.at).toBeGreaterThan(received[0]!.at);
    expect(received[2]!.at).toBeGreaterThan(received[1]!.at);
  });

  it('reorder (every event, as the out-of-order-webhooks scenario): reversed, final first', async () => {
    const { clock, received } = await start({ seed: 18, rules: [{ id: 'reverse', on: 'webhook', fault: { type: 'reorder' } }] });
    await clock.advance(2000);
    await provider!.idle();
    expect(received.map((r) => r.type)).toEqual(['job.succeeded', 'job.progress', 'job.running']);
  });

  it('drop (only the running event): it never arrives, the others do; journal outcome dropped', async () => {
    const { clock, received } = await start({ seed: 19, rules: [{ id: 'drop-one', on: 'webhook', nth: 1, fault: { type: 'drop' } }] });
    await clock.advance(60_000);
    await provider!.idle();
    expect(received.map((r) => r.type)).toEqual(['job.progress', 'job.succeeded']);
    const entries = webhookEntries(provider!.journal.all());
    expect(entries.map((e) => [e.event_type, e.outcome, e.fault?.rule_id ?? null])).toEqual([
      ['job.running', 'dropped', 'drop-one'],
      ['job.progress', 'delivered', null],
      ['job.succeeded', 'delivered', null],
    ]);
  });

  it('delay: the event arrives exactly ms later, not before', async () => {
    const { clock, received, t0 } = await start({
      seed: 20,
      rules: [{ id: 'late', on: 'webhook', nth: 1, fault: { type: 'delay', ms: 700 } }],
    });
    await clock.advance(100 + 699);
    expect(received.map((r) => r.type)).toEqual(['job.progress']);
    await clock.advance(1);
    await provider!.idle();
    expect(received.map((r) => [r.type, r.at - t0])).toEqual([
      ['job.progress', 500],
      ['job.running', 800],
    ]);
    await clock.advance(1000);
    await provider!.idle();
    expect(received.map((r) => r.type)).toEqual(['job.progress', 'job.running', 'job.succeeded']);
    const running = webhookEntries(provider!.journal.all()).find((e) => e.event_type === 'job.running');
    expect(running).toMatchObject({ outcome: 'delivered', fault: { rule_id: 'late', type: 'delay' } });
  });

  it('reorder with the final event dropped: the held events still go out, newest first', async () => {
    const { clock, received } = await start({
      seed: 21,
      rules: [
        { id: 'hold', on: 'webhook', nth: [1, 2], fault: { type: 'reorder' } },
        { id: 'drop-final', on: 'webhook', nth: 3, fault: { type: 'drop' } },
      ],
    });
    await clock.advance(2000);
    await provider!.idle();
    expect(received.map((r) => r.type)).toEqual(['job.progress', 'job.running']);
    const dropped = webhookEntries(provider!.journal.all()).filter((e) => e.outcome === 'dropped');
    expect(dropped.map((e) => e.event_type)).toEqual(['job.succeeded']);
  });

  it('reorder with the final event delayed: the held events arrive after it', async () => {
    const { clock, received, t0 } = await start({
      seed: 22,
      rules: [
        { id: 'hold', on: 'webhook', nth: [1, 2], fault: { type: 'reorder' } },
        { id: 'late-final', on: 'webhook', nth: 3, fault: { type: 'delay', ms: 500 } },
      ],
    });
    await clock.advance(3000);
    await provider!.idle();
    expect(received.map((r) => r.type)).toEqual(['job.succeeded', 'job.progress', 'job.running']);
    expect(received[0]!.at - t0).toBe(1500);
  });
});
