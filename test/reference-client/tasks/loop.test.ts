/**
 * Task workers in the one lease loop (lease-loop.ts): two workers on one store never both act on one task operation,
 * and a paused worker whose lease was taken over writes nothing and sends nothing when it wakes (fencing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, IN_PROCESS_BASE, type Provider } from '../../../src/fake-provider/index.js';
import { settle, VirtualClock } from '../../../src/lib/clock.js';
import { seededIds } from '../../../src/lib/ids.js';
import { TaskLeaseLostError } from '../../../src/reference-client/tasks/lease.js';
import { SqliteTaskStore, TaskWorker, type TaskStore } from '../../../src/reference-client/tasks/index.js';

const CONTROL = { authorization: 'Bearer control-token', 'content-type': 'application/json' };
const OBJECTS = ['inv-1', 'inv-2', 'inv-3', 'inv-4'];

let clock: VirtualClock;
let provider: Provider;
let state: string;
const stores: TaskStore[] = [];

beforeEach(async () => {
  clock = new VirtualClock();
  provider = createProvider({ clock, ids: seededIds(5) });
  state = mkdtempSync(join(tmpdir(), 'jobproof-taskloop-'));
  for (const ref of OBJECTS)
    await provider.fetch(`${IN_PROCESS_BASE}/_control/objects/${ref}`, {
      method: 'PUT',
      headers: CONTROL,
      body: JSON.stringify({ tenant: 'acme', data: { amount: 1 } }),
    });
  approveEveryDraft();
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  provider.close();
  rmSync(state, { recursive: true, force: true });
});

/** A reviewer who approves every proposal awaiting review, looking every 250 ms of virtual time. */
function approveEveryDraft(): void {
  const tick = async () => {
    for (const id of provider.tasks.tasks.allIds()) {
      const t = provider.tasks.tasks.get(id)!;
      if (t.state === 'awaiting_review')
        await provider.fetch(`${IN_PROCESS_BASE}/v1/tasks/${id}/review`, {
          method: 'POST',
          headers: { authorization: 'Bearer reviewer-token', 'content-type': 'application/json' },
          body: JSON.stringify({ decision: 'approve', proposal_version: t.result!.proposal.proposal_version }),
        });
    }
    clock.setTimeout(() => void tick(), 250);
  };
  clock.setTimeout(() => void tick(), 250);
}

function worker(workerId: string, opts: { store?: TaskStore; fetch?: typeof fetch; concurrency?: number } = {}): TaskWorker {
  const store = opts.store ?? SqliteTaskStore.open(state);
  stores.push(store);
  return new TaskWorker({
    store,
    fetch: opts.fetch ?? provider.fetch,
    clock,
    providerUrl: IN_PROCESS_BASE,
    token: 'dev-token',
    workerId,
    leaseMs: 3_000,
    concurrency: opts.concurrency,
  });
}

/** Step virtual time until `cond` holds (or `limitMs` of virtual time passes). */
async function until(cond: () => boolean | Promise<boolean>, limitMs = 120_000): Promise<void> {
  const limit = clock.now() + limitMs;
  while (!(await cond()) && clock.now() < limit) if (!(await clock.step())) await settle(10);
  expect(await cond()).toBe(true);
}

function settled<T>(p: Promise<T>): () => boolean {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

const requests = () =>
  provider.journal.all().filter((e) => e.type === 'request') as Array<
    Extract<ReturnType<Provider['journal']['all']>[number], { type: 'request' }>
  >;

describe('task workers in the one lease loop', () => {
  it('two workers on one store never both act on one task operation, and share the work between them', async () => {
    const a = worker('wA', { concurrency: 1 });
    const b = worker('wB', { concurrency: 1 });
    const ops = await Promise.all(
      OBJECTS.map((ref, i) =>
        a.submitTask({ task_op_id: `op-${i}`, object_ref: ref, object_version: 1, input: { changes: { paid: true } } }),
      ),
    );
    const stop = new AbortController();
    const runs = [a.run(stop.signal), b.run(stop.signal)];
    const done = settled(Promise.all(runs));
    await until(done);
    await Promise.all(runs);

    for (const op of ops) expect((await a.report(op.task_op_id)).state).toBe('applied');
    // Leases are sticky: every request for one operation (its trace id) came from one worker.
    const byOp = new Map<string, Set<string | null>>();
    for (const e of requests().filter((r) => r.worker_id !== null))
      byOp.set(e.trace_id!, (byOp.get(e.trace_id!) ?? new Set()).add(e.worker_id));
    expect([...byOp.keys()].sort()).toEqual(ops.map((o) => o.trace_id).sort());
    for (const workers of byOp.values()) expect(workers.size).toBe(1);
    expect(new Set([...byOp.values()].flatMap((w) => [...w]))).toEqual(new Set(['wA', 'wB']));
    // Each operation was created once and applied once.
    expect(requests().filter((e) => e.route === 'task_create' && e.effect === 'created')).toHaveLength(OBJECTS.length);
    for (const ref of OBJECTS) expect(provider.tasks.objects.get('acme', ref)!.version).toBe(2);
  });

  it('a paused worker whose lease was taken over writes nothing and sends nothing when it wakes', async () => {
    // Drafting takes a while, so the operation is still open (waiting) when A wakes.
    await provider.fetch(`${IN_PROCESS_BASE}/_control/task-behavior`, {
      method: 'PUT',
      headers: CONTROL,
      body: JSON.stringify({ draft_ms: 20_000 }),
    });
    // Worker A is paused (its store calls and its requests hang, heartbeat included) right after its create is answered.
    let paused = false;
    let resume!: () => void;
    const gate = new Promise<void>((r) => (resume = r));
    const wait = async () => {
      if (paused) await gate;
    };
    const raw = SqliteTaskStore.open(state);
    const changes: Array<'written' | unknown> = [];
    const storeA = new Proxy(raw, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function' || prop === 'close') return v;
        return async (...args: unknown[]) => {
          await wait();
          if (prop !== 'change') return v.apply(target, args);
          try {
            const out = await v.apply(target, args);
            if (paused) changes.push('written');
            return out;
          } catch (err) {
            if (paused) changes.push(err);
            throw err;
          }
        };
      },
    }) as TaskStore;
    const fetchA = (async (input: RequestInfo | URL, init?: RequestInit) => {
      await wait();
      const res = await provider.fetch(input, init);
      if (String(input).endsWith('/v1/tasks') && !paused) {
        paused = true;
        await gate;
      }
      return res;
    }) as typeof fetch;
    const a = worker('wA', { store: storeA, fetch: fetchA });
    const b = worker('wB');
    const op = await b.submitTask({ task_op_id: 'op-1', object_ref: 'inv-1', object_version: 1, input: { changes: { paid: true } } });
    const runA = a.run(new AbortController().signal);
    const aDone = settled(runA);
    await until(() => paused);
    const tokenA = (await b.store.get('op-1'))!.fencing_token!;

    // B waits out A's lease, takes the operation with the next token and moves it on; then A wakes.
    const runB = b.run(new AbortController().signal);
    await until(async () => {
      const r = (await b.store.get('op-1'))!;
      return r.lease_owner === 'wB' && r.state === 'waiting';
    });
    expect((await b.store.get('op-1'))!.fencing_token).toBe(tokenA + 1);
    const sentByA = requests().filter((e) => e.worker_id === 'wA').length;
    resume();
    const bothDone = settled(Promise.all([runA, runB]));
    await until(bothDone);
    await Promise.all([runA, runB]);
    expect(aDone()).toBe(true);

    // A's write of the create answer it held was refused on the token, and it sent nothing more.
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) expect(c).toBeInstanceOf(TaskLeaseLostError);
    expect(requests().filter((e) => e.worker_id === 'wA')).toHaveLength(sentByA);
    const history = await b.store.history('op-1');
    expect(history.filter((h) => h.from === 'create_pending')).toHaveLength(1);
    expect(history.at(-1)!.to).toBe('applied');
    expect(
      requests()
        .filter((e) => e.route === 'task_create')
        .map((e) => [e.worker_id, e.effect, e.idempotency_key]),
    ).toEqual([
      ['wA', 'created', op.create_key],
      ['wB', 'replayed', op.create_key],
    ]);
    expect(provider.tasks.objects.get('acme', 'inv-1')!.version).toBe(2);
  });
});
