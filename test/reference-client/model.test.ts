import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAllowedTransition, isFinalState, UnknownOperationError } from '../../src/contract/client-protocol.js';
import type { FaultRule } from '../../src/contract/faults.js';
import type { ReferenceClient } from '../../src/reference-client/client.js';
import { SqliteOperationStore } from '../../src/reference-client/store/sqlite-store.js';
import { bench, crashable, op, Pausable, type Bench } from './harness.js';
import { drive } from './helpers.js';

/**
 * Model-based: random sequences of submits, cancels, provider faults, time, crashes and stalls past the lease,
 * against the real provider on a virtual clock. After every command: no create without a record made first, one
 * key per operation, at most one job per operation, every history a valid chain. At the end, with faults lifted:
 * every operation final and its final state backed by what the provider says.
 */
const LEASE_MS = 2000;
const IDS = ['op_a', 'op_b', 'op_c', 'op_d'];

interface Live {
  id: string;
  client: ReferenceClient;
  run: Promise<unknown>;
  crash?: () => void;
  pausable: Pausable;
  /** `work` returns once every operation is final (at once when there are none): a harness starts another. */
  done: boolean;
}
interface Real {
  b: Bench;
  workers: Live[];
  n: number;
  reader: SqliteOperationStore;
}
interface Model {
  submitted: Set<string>;
}

function startWorker(r: Real): Live {
  const id = `worker-${++r.n}`;
  const store = crashable(SqliteOperationStore.open(r.b.dir));
  const pausable = new Pausable(r.b.clock);
  const client = r.b.client(id, { store, clock: pausable.clock, fetch: pausable.fetch(r.b.provider.fetch) });
  const w: Live = { id, client, run: Promise.resolve(), crash: () => store.crash(), pausable, done: false };
  w.run = client
    .work({ signal: new AbortController().signal })
    .catch((e: unknown) => e)
    .finally(() => (w.done = true));
  r.workers.push(w);
  return w;
}

async function snapshot(r: Real, id: string) {
  for (;;) {
    const rec = await r.reader.get(id);
    const h = await r.reader.history(id);
    const again = await r.reader.get(id);
    if (JSON.stringify(rec) === JSON.stringify(again)) return { rec, h };
  }
}

async function checkInvariants(r: Real): Promise<void> {
  const reqs = r.b.requests();
  for (const id of IDS) {
    // Record and history read as one snapshot: a worker may commit between two reads.
    const { rec, h } = await snapshot(r, id);
    const creates = reqs.filter((e) => e.route === 'create' && e.client_ref === id);
    if (!rec) {
      expect(creates).toEqual([]);
      continue;
    }
    // The attempt is counted durably before the request leaves, so the count can never trail the journal.
    expect(rec.create_attempts).toBeGreaterThanOrEqual(creates.length);
    for (const c of creates) expect(c.idempotency_key).toBe(rec.idempotency_key);
    expect(creates.filter((c) => c.effect === 'created').length).toBeLessThanOrEqual(1);
    for (const e of reqs.filter((q) => q.trace_id === rec.trace_id)) expect(e.trace_id).not.toBe(rec.idempotency_key);
    // I6: a cancel is sent again only after the previous one failed ambiguously or was refused unexecuted.
    const cancels = reqs.filter((e) => e.route === 'cancel' && e.trace_id === rec.trace_id);
    for (let i = 1; i < cancels.length; i++) {
      const prev = cancels[i - 1]!;
      expect(
        prev.delivery !== 'delivered' || prev.status === 429 || prev.status >= 500,
        `cancel #${i + 1} after ${prev.status}/${prev.delivery}`,
      ).toBe(true);
    }
    // I7: nothing for this operation before a Retry-After on 429/503/409 elapsed.
    const mine = reqs.filter((e) => e.trace_id === rec.trace_id);
    mine.forEach((e, i) => {
      if (e.retry_after === null || ![409, 429, 503].includes(e.status) || e.delivery !== 'delivered') return;
      const next = mine[i + 1];
      if (next) expect(Date.parse(next.at) - Date.parse(e.at)).toBeGreaterThanOrEqual(e.retry_after * 1000);
    });
    h.forEach((entry, i) => {
      const prev = i === 0 ? null : h[i - 1]!.to;
      expect(entry.from).toBe(prev);
      expect(isAllowedTransition(prev, entry.to)).toBe(true);
      if (i > 0) expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(Date.parse(h[i - 1]!.at));
    });
    expect(h[h.length - 1]!.to).toBe(rec.state);
  }
}

type Cmd = fc.AsyncCommand<Model, Real>;
const cmd = (name: string, check: (m: Model) => boolean, run: (m: Model, r: Real) => Promise<void>): Cmd => ({
  check,
  async run(m, r) {
    await run(m, r);
    await checkInvariants(r);
  },
  toString: () => name,
});

const FAULTS: FaultRule['fault'][] = [
  { type: 'lose_response', mode: 'reset' },
  { type: 'lose_response', mode: 'hang' },
  { type: 'fail_before_commit', status: 503 },
  { type: 'rate_limit', retry_after: 2 },
  { type: 'error_after_commit' },
  { type: 'delay', ms: 300 },
];
const ROUTES = ['create', 'status', 'list', 'cancel', 'results'] as const;

const commands = [
  fc.constantFrom(...IDS).map((id) =>
    cmd(
      `submit(${id})`,
      () => true,
      async (m, r) => {
        await r.workers[r.workers.length - 1]!.client.submit(op(id, { create_deadline_ms: 30_000, result_deadline_ms: 300_000 }));
        m.submitted.add(id);
        if (!r.workers.some((w) => w.crash && !w.done)) startWorker(r);
      },
    ),
  ),
  fc.constantFrom(...IDS).map((id) =>
    cmd(
      `cancel(${id})`,
      () => true,
      async (m, r) => {
        const c = r.workers[r.workers.length - 1]!.client;
        const p = c.cancel(id, { actor: 'prop', reason: 'random', cancel_deadline_ms: 20_000 });
        if (m.submitted.has(id)) await p;
        else await expect(p).rejects.toBeInstanceOf(UnknownOperationError);
      },
    ),
  ),
  fc
    .record({
      on: fc.constantFrom(...ROUTES),
      fault: fc.constantFrom(...FAULTS),
      probability: fc.constantFrom(0.3, 0.7, 1),
      seed: fc.nat(1000),
    })
    .map((f) =>
      cmd(
        `faults(${f.on}:${f.fault.type}@${f.probability})`,
        () => true,
        async (_m, r) => {
          r.b.provider.control.setFaults({ seed: f.seed, rules: [{ on: f.on, probability: f.probability, times: 3, fault: f.fault }] });
        },
      ),
    ),
  fc.integer({ min: 10, max: 8000 }).map((ms) =>
    cmd(
      `advance(${ms})`,
      () => true,
      async (_m, r) => void (await r.b.clock.advance(ms)),
    ),
  ),
  fc.constant(
    cmd(
      'crash+restart',
      () => true,
      async (_m, r) => {
        const live = r.workers.filter((w) => w.crash);
        const victim = live[live.length - 1]!;
        victim.crash!();
        victim.crash = undefined;
        startWorker(r);
      },
    ),
  ),
  fc.integer({ min: LEASE_MS + 100, max: LEASE_MS * 3 }).map((ms) =>
    cmd(
      `stall-past-lease(${ms})`,
      () => true,
      async (_m, r) => {
        const live = r.workers.filter((w) => w.crash);
        const stalled = live[live.length - 1]!;
        stalled.pausable.pause();
        startWorker(r);
        await r.b.clock.advance(ms);
        stalled.pausable.resume();
      },
    ),
  ),
];

async function finish(r: Real): Promise<void> {
  r.b.provider.control.clearFaults();
  for (let round = 0; round < 3 && (await r.reader.countOpen()) > 0; round++) {
    if (!r.workers.some((w) => w.crash && !w.done)) startWorker(r);
    const alive = r.workers.filter((w) => w.crash);
    const outcomes = await drive(r.b.clock, Promise.all(alive.map((w) => w.run)), 24 * 3600 * 1000);
    for (const o of outcomes) expect(o).toBeUndefined();
  }
  await checkInvariants(r);
  for (const id of IDS) {
    const rec = await r.reader.get(id);
    if (!rec) continue;
    expect(isFinalState(rec.state)).toBe(true);
    const jobId = rec.remote_job_id;
    const job = jobId
      ? ((await (await r.b.provider.fetch(`/v1/jobs/${jobId}`, { headers: { authorization: 'Bearer dev-token' } })).json()) as {
          state: string;
          result: { sha256: string } | null;
        })
      : null;
    if (rec.state === 'succeeded') expect(rec.result_sha256).toBe(job!.result!.sha256);
    if (rec.state === 'cancelled') expect(job === null ? 'no job' : job.state).toMatch(/cancelled|no job/);
    if (rec.state === 'failed' && job) expect(['failed', 'expired']).toContain(job.state);
  }
}

describe('model-based run', () => {
  const numRuns = process.env.JOBPROOF_LONG ? 300 : 12;
  it(`holds the invariants over ${numRuns} random command sequences`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: process.env.JOBPROOF_LONG ? 40 : 18 }), async (cmds) => {
        const b = bench({ leaseMs: LEASE_MS, behavior: { duration_ms: 6000, commit_point: 0.7 } });
        const r: Real = { b, workers: [], n: 0, reader: SqliteOperationStore.open(b.dir) };
        try {
          startWorker(r);
          await fc.asyncModelRun(() => ({ model: { submitted: new Set<string>() }, real: r }), cmds);
          await finish(r);
        } finally {
          await r.reader.close();
          b.close();
        }
      }),
      { numRuns, seed: process.env.JOBPROOF_SEED ? Number(process.env.JOBPROOF_SEED) : undefined },
    );
  }, 120_000);
});
