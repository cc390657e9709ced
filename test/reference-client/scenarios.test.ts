import { afterEach, describe, expect, it } from 'vitest';
import { ChangedRequestError, UnknownOperationError } from '../../src/contract/client-protocol.js';
import type { BehaviorInput } from '../../src/contract/behavior.js';
import type { FaultPlanInput } from '../../src/contract/faults.js';
import { verifyAudit } from '../../src/reference-client/index.js';
import { bench, jobsCreatedFor, op, type Bench } from './harness.js';
import { drive } from './helpers.js';

/** The rest of the catalog that a single in-process worker can show, one table row each. */
const CASES: {
  name: string;
  behavior?: BehaviorInput;
  faults?: FaultPlanInput;
  submit?: Parameters<typeof op>[1];
  cancelAt?: number;
  final: string;
  check?: (b: Bench, id: string) => void;
}[] = [
  {
    name: 'rate-limited: no status read before Retry-After elapsed',
    behavior: { duration_ms: 10_000 },
    faults: { rules: [{ on: 'status', probability: 0.5, fault: { type: 'rate_limit', retry_after: 3 } }], seed: 3 },
    final: 'succeeded',
    check(b) {
      const reqs = b.requests();
      reqs.forEach((e, i) => {
        if (e.status !== 429) return;
        const next = reqs.slice(i + 1).find((n) => n.trace_id === e.trace_id);
        if (next) expect(Date.parse(next.at) - Date.parse(e.at)).toBeGreaterThanOrEqual(3000);
      });
      expect(reqs.some((e) => e.status === 429)).toBe(true);
    },
  },
  {
    name: 'flapping-5xx: one job, the result, bounded retries',
    faults: {
      seed: 11,
      rules: (['create', 'status', 'list', 'results'] as const).map((on) => ({
        on,
        probability: 0.4,
        fault: { type: 'fail_before_commit' as const, status: 503 as const },
      })),
    },
    final: 'succeeded',
    check: (b) => expect(b.requests().length).toBeLessThan(60),
  },
  {
    name: 'never-finishes: result_timed_out at the deadline, polling stops, polls bounded',
    behavior: { outcome: 'never' },
    submit: { result_deadline_ms: 120_000 },
    final: 'result_timed_out',
    check(b) {
      const polls = b.requests().filter((e) => e.route === 'status');
      expect(polls.length).toBeLessThan(25); // ~log2(cap/base) + 120 s / 10 s cap
      expect(Date.parse(polls[polls.length - 1]!.at) - Date.parse(b.requests()[0]!.at)).toBeLessThanOrEqual(121_000);
    },
  },
  {
    name: 'cancel-unconfirmed: the provider never confirms',
    behavior: { duration_ms: 600_000, cancel: 'ignore' },
    cancelAt: 2000,
    final: 'cancellation_unconfirmed',
  },
  { name: 'partial-batch: 2 of 10 failed items are reported, not hidden', behavior: { items: 10, items_failed: 2 }, final: 'succeeded' },
  { name: 'corrupt-result: digest mismatch never ends succeeded', behavior: { corrupt_digest: true }, final: 'result_validation_failed' },
  { name: 'error-row: a row outside the contract never ends succeeded', behavior: { error_row: true }, final: 'result_validation_failed' },
  {
    name: 'one-shot-results: fetched once, succeeded',
    behavior: { one_shot_results: true },
    final: 'succeeded',
    check: (b) => expect(b.requests().filter((e) => e.route === 'results')).toHaveLength(1),
  },
  {
    name: 'one-shot results whose answer is lost: result_unavailable, honestly',
    behavior: { one_shot_results: true },
    faults: { rules: [{ on: 'results', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] },
    final: 'result_unavailable',
  },
  { name: 'progress-lies: 100 % progress is not success', behavior: { progress_lies: true, duration_ms: 20_000 }, final: 'succeeded' },
  { name: 'failed job: failed with its reason', behavior: { outcome: 'failed' }, final: 'failed' },
  { name: 'expired job: failed', behavior: { outcome: 'expired' }, final: 'failed' },
  {
    // A sync create that answers with an ended job ends the operation on that answer; it used to be taken as
    // "accepted" and, with every status read lost, a cancel then ended cancellation_unconfirmed (I5; seed 7 of
    // `certify --in-process --runs 1000`, schedule 958).
    name: 'sync create answering an expired job: failed at once, not polled',
    behavior: { mode: 'sync', duration_ms: 0, outcome: 'expired' },
    faults: { seed: 0, rules: [{ on: 'status', fault: { type: 'lose_response', mode: 'hang' } }] },
    final: 'failed',
    check(b) {
      expect(b.requests().filter((e) => e.route === 'status')).toEqual([]);
    },
  },
  {
    name: 'create refused for good (401 every time): failed, no retries',
    faults: { rules: [] },
    final: 'failed',
  },
];

describe('catalog scenarios (in-process)', () => {
  let b: Bench;
  afterEach(() => b?.close());

  for (const c of CASES) {
    it(c.name, async () => {
      b = bench({ behavior: c.behavior, faults: c.faults });
      const client = c.name.startsWith('create refused')
        ? b.client('worker-1', {
            fetch: (i, init) =>
              b.provider.fetch(i, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: 'Bearer nope' } }),
          })
        : b.client();
      await client.submit(op('op_x', c.submit));
      const done = client.work({ signal: new AbortController().signal });
      if (c.cancelAt) {
        await b.clock.advance(c.cancelAt);
        await client.cancel('op_x', { actor: 'eve', reason: 'enough', cancel_deadline_ms: 30_000 });
      }
      await drive(b.clock, done);
      const rec = await client.show('op_x');
      expect(rec.state).toBe(c.final);
      expect(jobsCreatedFor(b, 'op_x').length).toBeLessThanOrEqual(1);
      if (c.final === 'succeeded')
        expect(rec.result!.sha256).toBe(b.requests().find((e) => e.route === 'results' && e.status === 200) ? rec.result!.sha256 : 'x');
      if (c.name.startsWith('partial')) expect(rec.result).toMatchObject({ items_total: 10, items_failed: 2 });
      c.check?.(b, 'op_x');
      expect((await verifyAudit(b.dir)).ok).toBe(true);
    });
  }

  it('changed-parameters: same id + changed input is refused; a new id gets a new key; same request is a no-op', async () => {
    b = bench();
    const c = b.client();
    await c.submit(op('op_1'));
    await c.submit(op('op_1'));
    await expect(c.submit(op('op_1', { input: { changed: true } }))).rejects.toBeInstanceOf(ChangedRequestError);
    await c.submit(op('op_2', { input: { changed: true } }));
    await b.work(c);
    const [r1, r2] = [await c.show('op_1'), await c.show('op_2')];
    expect(r1.idempotency_key).not.toBe(r2.idempotency_key);
    expect(r1.trace_id).not.toBe(r2.trace_id);
    expect(r1.trace_id).not.toBe(r1.idempotency_key);
    expect([r1.state, r2.state]).toEqual(['succeeded', 'succeeded']);
    expect(jobsCreatedFor(b, 'op_1')).toHaveLength(1);
    await expect(c.show('nope')).rejects.toBeInstanceOf(UnknownOperationError);
    await expect(c.cancel('nope', { actor: 'a', reason: 'r', cancel_deadline_ms: 1 })).rejects.toBeInstanceOf(UnknownOperationError);
  });

  it('many operations at once: each gets one job and its result', async () => {
    b = bench({
      behavior: { duration_ms: 4000 },
      faults: { seed: 5, rules: [{ on: 'create', probability: 0.3, fault: { type: 'lose_response', mode: 'reset' } }] },
    });
    const c = b.client();
    for (let i = 0; i < 40; i++) await c.submit(op(`op_${i}`));
    await b.work(c);
    for (let i = 0; i < 40; i++) {
      expect((await c.show(`op_${i}`)).state).toBe('succeeded');
      expect(jobsCreatedFor(b, `op_${i}`)).toHaveLength(1);
    }
  });
});
