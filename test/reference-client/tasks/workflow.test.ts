import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, IN_PROCESS_BASE, type Provider } from '../../../src/fake-provider/index.js';
import { settle, VirtualClock } from '../../../src/lib/clock.js';
import { seededIds } from '../../../src/lib/ids.js';
import { createTaskClient, type TaskClient } from '../../../src/reference-client/tasks/index.js';

const CONTROL = { authorization: 'Bearer control-token', 'content-type': 'application/json' };

let clock: VirtualClock;
let provider: Provider;
let state: string;
const clients: TaskClient[] = [];

beforeEach(async () => {
  clock = new VirtualClock();
  provider = createProvider({ clock, ids: seededIds(3) });
  state = mkdtempSync(join(tmpdir(), 'jobproof-taskclient-'));
  await provider.fetch(`${IN_PROCESS_BASE}/_control/objects/inv-1`, {
    method: 'PUT',
    headers: CONTROL,
    body: JSON.stringify({ tenant: 'acme', data: { amount: 1 } }),
  });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  provider.close();
  rmSync(state, { recursive: true, force: true });
});

function client(fetchImpl: typeof fetch = provider.fetch): TaskClient {
  const c = createTaskClient({ state, fetch: fetchImpl, clock, providerUrl: IN_PROCESS_BASE, token: 'dev-token', workerId: 'w1' });
  clients.push(c);
  return c;
}

async function drive<T>(p: Promise<T>, untilMs = 120_000): Promise<T> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  const limit = clock.now() + untilMs;
  while (!done && clock.now() < limit) if (!(await clock.step())) await settle(10);
  return p;
}

async function review(taskId: string, decision = 'approve', token = 'reviewer-token'): Promise<number> {
  const t = provider.tasks.tasks.get(taskId)!;
  const res = await provider.fetch(`${IN_PROCESS_BASE}/v1/tasks/${taskId}/review`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ decision, proposal_version: t.result!.proposal.proposal_version }),
  });
  return res.status;
}

function approveWhenAwaiting(c: TaskClient): void {
  const tick = async () => {
    const id = (await c.records())[0]?.row.task_id;
    if (id && provider.tasks.tasks.get(id)?.state === 'awaiting_review') void review(id);
    else clock.setTimeout(() => void tick(), 250);
  };
  clock.setTimeout(() => void tick(), 250);
}

const submit = (c: TaskClient) =>
  c.submitTask({ task_op_id: 'op-1', object_ref: 'inv-1', object_version: 1, input: { changes: { status: 'paid' } } });
const requests = (route: string) =>
  provider.journal.all().filter((e) => e.type === 'request' && e.route === route) as Array<
    Extract<ReturnType<Provider['journal']['all']>[number], { type: 'request' }>
  >;

describe('reference task client', () => {
  it('records the intent with a 128-bit create key before sending anything, in <state>/tasks.db (WAL); a second submit is a no-op', async () => {
    let calls = 0;
    const c = client((async (...a: Parameters<typeof fetch>) => {
      calls += 1;
      return provider.fetch(...a);
    }) as typeof fetch);
    const row = await submit(c);
    expect(calls).toBe(0);
    expect(row.state).toBe('create_pending');
    expect(row.create_key).toMatch(/^tcreate_[0-9a-f]{32}$/);
    expect(row.apply_key).toBeNull();
    expect(existsSync(join(state, 'tasks.db'))).toBe(true);
    const db = new Database(join(state, 'tasks.db'), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect((await submit(c)).create_key).toBe(row.create_key);
    expect((await c.records())[0]!.history.map((h) => h.to)).toEqual(['create_pending']);
  });

  it('runs to applied: waits for review, applies with its own key (stored before the first apply), reports the application', async () => {
    const c = client();
    await submit(c);
    approveWhenAwaiting(c);
    const r = await drive(c.runTask('op-1'));
    expect(r.state).toBe('applied');
    expect(r.application).toMatchObject({ new_version: 2, idempotency_key: r.apply_key });
    const { row, history } = (await c.records())[0]!;
    expect(r.apply_key).toMatch(/^tapply_[0-9a-f]{32}$/);
    expect(r.apply_key).not.toBe(row.create_key);
    const toApplying = history.find((h) => h.to === 'applying')!;
    expect(toApplying.evidence.apply_key).toBe(r.apply_key);
    expect(requests('apply')[0]!.idempotency_key).toBe(r.apply_key);
    expect(history.map((h) => h.to)).toEqual(['create_pending', 'waiting', 'waiting', 'applying', 'applied']);
  });

  it('honours Retry-After while the task is drafting', async () => {
    await provider.fetch(`${IN_PROCESS_BASE}/_control/task-behavior`, {
      method: 'PUT',
      headers: CONTROL,
      body: JSON.stringify({ draft_ms: 6_000 }),
    });
    const c = client();
    await submit(c);
    approveWhenAwaiting(c);
    await drive(c.runTask('op-1'));
    const reads = requests('task_read');
    expect(reads.filter((e) => e.retry_after !== null).length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < reads.length; i++) {
      const prev = reads[i - 1]!;
      if (prev.retry_after !== null)
        expect(Date.parse(reads[i]!.received_at) - Date.parse(prev.at)).toBeGreaterThanOrEqual(prev.retry_after * 1000);
    }
  });

  it('a lost create answer is reconciled by replaying the same create key: one task', async () => {
    provider.control.setFaults({ rules: [{ on: 'task_create', nth: 1, fault: { type: 'lose_response' } }] });
    const c = client();
    await submit(c);
    approveWhenAwaiting(c);
    const r = await drive(c.runTask('op-1'));
    expect(r.state).toBe('applied');
    const creates = requests('task_create');
    expect(creates.map((e) => [e.effect, e.delivery])).toEqual([
      ['created', 'lost'],
      ['replayed', 'delivered'],
    ]);
    expect(new Set(creates.map((e) => e.idempotency_key)).size).toBe(1);
    expect(provider.tasks.tasks.get(r.task_id!)).toBeTruthy();
  });

  it('survives a restart between a lost apply answer and its retry: the new worker replays the stored apply key', async () => {
    provider.control.setFaults({ rules: [{ on: 'apply', nth: 1, fault: { type: 'lose_response' } }] });
    const stop = new AbortController();
    const first = client((async (input: RequestInfo | URL, init?: RequestInit) => {
      const isApply = String(input).endsWith('/apply');
      try {
        return await provider.fetch(input, init);
      } finally {
        if (isApply) stop.abort(new Error('crash'));
      }
    }) as typeof fetch);
    await submit(first);
    approveWhenAwaiting(first);
    const r1 = await drive(first.runTask('op-1', stop.signal));
    expect(r1.state).toBe('applying');
    const key = r1.apply_key;
    await first.close();
    clients.splice(clients.indexOf(first), 1);

    const second = client();
    const r2 = await drive(second.runTask('op-1'));
    expect(r2.state).toBe('applied');
    expect(r2.apply_key).toBe(key);
    expect(requests('apply').map((e) => [e.idempotency_key, e.effect])).toEqual([
      [key, 'applied'],
      [key, 'replayed'],
    ]);
    expect(provider.tasks.objects.get('acme', 'inv-1')!.version).toBe(2);
  });

  it('409 already_applied (someone else applied first): reads the task and reports the application', async () => {
    let raced = false;
    const c = client((async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).endsWith('/apply') && !raced) {
        raced = true;
        await provider.fetch(input, {
          method: 'POST',
          headers: { authorization: 'Bearer dev-token-2', 'idempotency-key': 'other-submitter-key-0001' },
        });
      }
      return provider.fetch(input, init);
    }) as typeof fetch);
    await submit(c);
    approveWhenAwaiting(c);
    const r = await drive(c.runTask('op-1'));
    expect(r.state).toBe('applied');
    expect(r.application?.idempotency_key).toBe('other-submitter-key-0001');
    expect(requests('apply').map((e) => e.code ?? e.effect)).toEqual(['applied', 'already_applied']);
    expect((await c.records())[0]!.history.at(-1)!.cause).toContain('already applied');
    expect(provider.tasks.objects.get('acme', 'inv-1')!.version).toBe(2);
  });

  it('rejected and apply_failed are final states of the task op', async () => {
    const c = client();
    await submit(c);
    const tick = async () => {
      const id = (await c.records())[0]?.row.task_id;
      if (id && provider.tasks.tasks.get(id)?.state === 'awaiting_review') void review(id, 'reject');
      else clock.setTimeout(() => void tick(), 250);
    };
    clock.setTimeout(() => void tick(), 250);
    expect((await drive(c.runTask('op-1'))).state).toBe('rejected');
    expect(requests('apply')).toEqual([]);
  });

  it('apply behaviour fail → apply_failed; draft failure → failed', async () => {
    await provider.fetch(`${IN_PROCESS_BASE}/_control/task-behavior`, {
      method: 'PUT',
      headers: CONTROL,
      body: JSON.stringify({ apply: 'fail' }),
    });
    const c = client();
    await submit(c);
    approveWhenAwaiting(c);
    expect((await drive(c.runTask('op-1'))).state).toBe('apply_failed');
    await provider.fetch(`${IN_PROCESS_BASE}/_control/task-behavior`, {
      method: 'PUT',
      headers: CONTROL,
      body: JSON.stringify({ outcome: 'failed' }),
    });
    await c.submitTask({ task_op_id: 'op-2', object_ref: 'inv-1', object_version: 1, input: { changes: { x: 1 } } });
    expect((await drive(c.runTask('op-2'))).state).toBe('failed');
  });

  it('a stale object version at create needs a person; the history is append-only', async () => {
    const c = client();
    await c.submitTask({ task_op_id: 'op-s', object_ref: 'inv-1', object_version: 7, input: { changes: {} } });
    const r = await drive(c.runTask('op-s'));
    expect(r.state).toBe('needs_attention');
    expect(r.reason).toContain('stale_object_version');
    const db = new Database(join(state, 'tasks.db'));
    expect(() => db.prepare('UPDATE task_history SET cause = ?').run('x')).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM task_history').run()).toThrow(/append-only/);
    db.close();
  });

  it('runs on the virtual clock only: a 45 s review wait passes in virtual time', async () => {
    const c = client();
    await submit(c);
    clock.setTimeout(() => void c.records().then((r) => review(r[0]!.row.task_id!)), 45_000);
    // No wall-clock assertion (speed is for benchmarks): the test's own timeout (far below 45 s) is the bound.
    const r = await drive(c.runTask('op-1'));
    expect(r.state).toBe('applied');
    expect(clock.now() - Date.parse('2026-01-01T00:00:00.000Z')).toBeGreaterThanOrEqual(45_000);
  });
});
