/**
 * The `replicate` npm client 1.4.0, unmodified, against the built-in `replicate` profile over real HTTP:
 * predictions.create → wait → result, create → cancel, and what its retry loop does to a lost create and a 429.
 */
import Replicate from 'replicate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../../src/contract/index.js';
import type { DialectServer } from '../../dialects/helpers.js';
import { startProfileServer } from '../helpers.js';

let s: DialectServer;
let replicate: Replicate;

beforeAll(async () => {
  s = await startProfileServer(['replicate'], { behavior: { default: { duration_ms: 2000, items: 2, cancel_ms: 100 } } });
  replicate = new Replicate({ auth: 'dev-token', baseUrl: `${s.url}/profiles/replicate/v1` });
});
afterAll(() => s.stop());

function creates(since: number): RequestEntry[] {
  return s.provider.journal.since(since).filter((e): e is RequestEntry => e.type === 'request' && e.route === 'create');
}

describe('replicate (npm) against the replicate profile', () => {
  it('creates a prediction and waits for it with the client: it ends succeeded with its output', async () => {
    const p = await replicate.predictions.create({ version: 'v1', input: { prompt: 'full' } });
    expect(p).toMatchObject({ status: 'starting', input: { prompt: 'full' } });
    expect(p.urls.get).toBe(`${s.url}/profiles/replicate/v1/predictions/${p.id}`);
    // wait() sleeps `interval` between polls; its stop hook moves the fake's virtual clock instead of real time.
    const seen: string[] = [];
    const done = await replicate.wait(p, { interval: 1 }, async (u) => {
      seen.push(u.status);
      await s.advance(500);
      return false;
    });
    expect(done.status).toBe('succeeded');
    expect(done.output).toHaveLength(2);
    expect(seen).toContain('processing');
    expect(done.completed_at).toBeTruthy();
    expect((await replicate.predictions.get(p.id)).status).toBe('succeeded');
  });

  it('cancels a running prediction: cancel answers the prediction and it ends canceled', async () => {
    const p = await replicate.predictions.create({ version: 'v1', input: { prompt: 'cancel' } });
    await s.advance(200);
    const c = await replicate.predictions.cancel(p.id);
    expect(c.id).toBe(p.id);
    expect(['processing', 'canceled']).toContain(c.status);
    await s.advance(500);
    const end = await replicate.wait(c, { interval: 1 });
    expect(end.status).toBe('canceled');
    // Cancelling a finished prediction answers the prediction again (no error), as Replicate does.
    expect((await replicate.predictions.cancel(p.id)).status).toBe('canceled');
  });

  it('lists predictions with the client paginator', async () => {
    const ids: string[] = [];
    for await (const page of replicate.paginate(replicate.predictions.list)) ids.push(...page.map((x) => x.id));
    expect(ids.length).toBeGreaterThanOrEqual(2);
  });

  it('a lost create answer: the client resends the POST at once (it swallows the network error), making a second prediction', async () => {
    s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const mark = s.provider.journal.lastSeq();
    try {
      const p = await replicate.predictions.create({ version: 'v1', input: { prompt: 'lost' } });
      const cs = creates(mark);
      expect(cs.map((e) => [e.effect, e.delivery])).toEqual([
        ['created', 'lost'],
        ['created', 'delivered'],
      ]);
      expect(cs[0]!.job_id).not.toBe(cs[1]!.job_id);
      expect(cs[1]!.job_id).toBe(p.id);
      expect(cs.every((e) => e.idempotency_key === null)).toBe(true);
    } finally {
      s.provider.control.clearFaults();
    }
  });

  it('a 429 on create is retried without waiting the Retry-After it was given', async () => {
    s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'rate_limit', retry_after: 30 } }] });
    const mark = s.provider.journal.lastSeq();
    const t0 = performance.now();
    try {
      const p = await replicate.predictions.create({ version: 'v1', input: { prompt: 'limited' } });
      // 30 s were asked for; the client came back well inside that (its backoff sleep is skipped: see docs/profile-clients.md).
      expect(performance.now() - t0).toBeLessThan(10_000);
      const cs = creates(mark);
      expect(cs).toHaveLength(2);
      expect(cs[1]!.job_id).toBe(p.id);
    } finally {
      s.provider.control.clearFaults();
    }
  });

  it('a 503 on create is not retried: the error reaches the caller', async () => {
    s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'fail_before_commit', status: 503 } }] });
    const mark = s.provider.journal.lastSeq();
    try {
      const e = await replicate.predictions.create({ version: 'v1', input: { prompt: 'x' } }).catch((err: unknown) => err);
      expect(e).toMatchObject({ response: { status: 503 } });
      expect(creates(mark)).toHaveLength(1);
    } finally {
      s.provider.control.clearFaults();
    }
  });
});
