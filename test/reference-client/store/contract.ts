import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OperationStore } from '../../../src/reference-client/store/operation-store.js';
import type { HistoryLine } from '../../../src/reference-client/state-machine.js';
import type { OperationPatch, StoredHistoryEntry } from '../../../src/reference-client/types.js';
import { row } from '../helpers.js';

export const T0 = Date.parse('2026-01-01T00:00:00Z');
/** A history line to `to` on evidence `kind`. */
export const line = (to: StoredHistoryEntry['to'], kind: string): HistoryLine => ({
  at: new Date(T0).toISOString(),
  actor: 'w1',
  to,
  cause: 'c',
  evidence: { kind },
  remote_state: null,
});

/** One backend under test: two handles on the same storage (as two processes would have), and raw SQL for attacks. */
export interface Handle {
  a: OperationStore;
  b: OperationStore;
  /** Raw SQL (absent for a store without SQL: its append-only triggers are not there to attack). */
  raw?(sql: string): Promise<unknown>;
  cleanup(): Promise<void>;
  /** Insert n open operations fast (not through insertOperation), next_poll_at = T0 + i * 1000. */
  bulkInsert(n: number): Promise<void>;
  /** The query plan of the due-set query, as text (absent for a store without SQL). */
  duePlan?(): Promise<string>;
}

export interface Backend {
  open(): Promise<Handle>;
  /** Absent for a store without SQL (run-memory's JavaScript store): no plan and no triggers to check. */
  planUsesIndex?: RegExp;
}

/**
 * The OperationStore contract, run unchanged on SQLite and on PostgreSQL: what the worker relies on (one transaction
 * per method, the fence, the due index, append-only history and audit) must hold on both.
 */
export function storeContract(name: string, backend: Backend | null): void {
  describe.skipIf(!backend)(`OperationStore contract: ${name}`, () => {
    let h: Handle;
    let a: OperationStore;
    let b: OperationStore;
    let raw: (sql: string) => Promise<unknown>;
    beforeEach(async () => {
      h = await backend!.open();
      ({ a, b } = h);
      raw = h.raw ?? (() => Promise.reject(new Error('no SQL')));
    });
    afterEach(async () => {
      await a.close();
      await b.close();
      await h.cleanup();
    });

    it('inserts once and round-trips the record', async () => {
      expect(await a.insertOperation(row('op1', T0), 'w', [])).toBe('inserted');
      expect(await b.insertOperation(row('op1', T0, { kind: 'other' }), 'w', [])).toBe('exists');
      expect(await b.get('op1')).toEqual(row('op1', T0));
      expect(await b.history('op1')).toHaveLength(1);
    });

    it('fences: a taken lease can write nothing and renew nothing', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      const [la] = await a.claimDue('w1', T0, 1000, 10, new Map());
      expect(la!.token).toBe(1);
      // Not claimable by another worker while the lease runs (next_poll_at was pushed one lease ahead too).
      expect(await b.claimDue('w2', T0 + 500, 1000, 10, new Map())).toEqual([]);
      const [lb] = await b.claimDue('w2', T0 + 1001, 1000, 10, new Map());
      expect(lb!.token).toBe(2);
      expect(await a.renew(la!, T0 + 1002, 1000)).toBe(false);
      expect(await a.commit(la!, { patch: { attempt: 9 }, history: [], audit: [] })).toBe('lease_lost');
      expect(await b.commit(lb!, { patch: { attempt: 1 }, history: [], audit: [] })).toBe('ok');
      expect((await a.get('op1'))!.attempt).toBe(1);
    });

    it('keeps our own lease at the same token when we still hold it', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      const [l1] = await a.claimDue('w1', T0, 1000, 10, new Map());
      await a.commit(l1!, { patch: { next_poll_at: T0 + 100 }, history: [], audit: [] });
      const [l2] = await a.claimDue('w1', T0 + 200, 1000, 10, new Map([['op1', l1!.token]]));
      expect(l2!.token).toBe(l1!.token);
      // A restarted process with the same worker id does not know the token: it takes over with a new one.
      await a.commit(l2!, { patch: { next_poll_at: T0 + 300 }, history: [], audit: [] });
      const [l3] = await b.claimDue('w1', T0 + 400, 1000, 10, new Map());
      expect(l3!.token).toBe(l2!.token + 1);
    });

    it('leaves the operations we are stepping alone: due, but not claimed, and their next step not pushed back', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      await a.insertOperation(row('op2', T0), 'w', []);
      const [l1] = await a.claimDue('w1', T0, 1000, 1, new Map());
      // Mid-step, our own op becomes due again (a webhook's poke); a claim meanwhile must pass it by and take the next.
      await a.commit(l1!, { patch: { next_poll_at: T0 + 10 }, history: [], audit: [] });
      const next = await a.claimDue('w1', T0 + 20, 1000, 10, new Map([[l1!.operation_id, l1!.token]]), new Set([l1!.operation_id]));
      expect(next.map((l) => l.operation_id)).toEqual(['op1', 'op2'].filter((id) => id !== l1!.operation_id));
      expect((await a.get(l1!.operation_id))!.next_poll_at).toBe(T0 + 10);
    });

    it('two workers claiming at once never get the same operation', async () => {
      for (let i = 0; i < 40; i++) await a.insertOperation(row(`op${i}`, T0), 'w', []);
      const [x, y] = await Promise.all([a.claimDue('w1', T0, 1000, 25, new Map()), b.claimDue('w2', T0, 1000, 25, new Map())]);
      const ids = [...x, ...y].map((l) => l.operation_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(40);
    });

    it('refuses a write that required no cancel when a cancel was recorded meanwhile', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      const [l] = await a.claimDue('w1', T0, 1000, 10, new Map());
      await b.recordCancelIntent('op1', { actor: 'u', reason: 'r', cancel_deadline_ms: 1, requested_at: T0, deadline_at: T0 + 1 }, []);
      expect(await a.commit(l!, { patch: { create_attempts: 1 }, history: [], audit: [], requireNoCancel: true })).toBe('cancel_recorded');
      expect((await a.get('op1'))!.create_attempts).toBe(0);
    });

    it('refuses to store a transition the table does not allow, and rolls the whole change back', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      const [l] = await a.claimDue('w1', T0, 1000, 10, new Map());
      const fine = line('create_unknown', 'create_ambiguous');
      await expect(
        a.commit(l!, { patch: { attempt: 3 }, history: [fine, line('succeeded', 'results_verified')], audit: [] }),
      ).rejects.toThrow(/not allowed/);
      // A move the protocol allows but not on this evidence is refused too: the table decides by evidence.
      await expect(a.commit(l!, { patch: {}, history: [line('cancelled', 'status_answer')], audit: [] })).rejects.toThrow(/not allowed/);
      const r = (await a.get('op1'))!;
      expect([r.state, r.attempt]).toEqual(['create_pending', 0]);
      expect(await a.history('op1')).toHaveLength(1);
    });

    it('moves a state only by history: a patch naming state or a lease column is refused (the type forbids it too)', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      const [l] = await a.claimDue('w1', T0, 1000, 10, new Map());
      for (const patch of [{ state: 'succeeded' }, { fencing_token: 99 }, { operation_id: 'x' }, { no_such_column: 1 }])
        await expect(a.commit(l!, { patch: patch as OperationPatch, history: [], audit: [] })).rejects.toThrow(/may not write/);
      expect((await a.get('op1'))!.state).toBe('create_pending');
    });

    it('inserts every operation in the first state with the submit line, whatever state the row carries', async () => {
      await a.insertOperation(row('op1', T0, { state: 'succeeded' }), 'w', []);
      expect((await a.get('op1'))!.state).toBe('create_pending');
      expect(await a.countOpen()).toBe(1);
      expect((await a.history('op1')).map((x) => [x.from, x.to, x.evidence.kind, x.actor])).toEqual([
        [null, 'create_pending', 'submit', 'w'],
      ]);
    });

    it.skipIf(!backend?.planUsesIndex)('makes history and audit append-only at the database level', async () => {
      await a.insertOperation(row('op1', T0), 'w', [{ at: T0, actor: 'w', kind: 'intent', operation_id: 'op1', detail: {} }]);
      await expect(raw("UPDATE history SET cause = 'x'")).rejects.toThrow(/append-only/);
      await expect(raw('DELETE FROM audit')).rejects.toThrow(/append-only/);
      await expect(raw('DELETE FROM history')).rejects.toThrow(/append-only/);
    });

    it('chains every audited write across both handles', async () => {
      await a.insertOperation(row('op1', T0), 'w', [{ at: T0, actor: 'w', kind: 'intent', operation_id: 'op1', detail: {} }]);
      await b.appendAudit([{ at: T0, actor: 'w2', kind: 'webhook', operation_id: 'op1', detail: {} }]);
      const [l] = await a.claimDue('w1', T0, 1000, 10, new Map());
      await a.commit(l!, { patch: {}, history: [], audit: [{ at: T0, actor: 'w1', kind: 'call', operation_id: 'op1', detail: {} }] });
      const rows = await b.auditRows();
      expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect(await b.auditHead()).toEqual({ seq: 4, hash: rows[3]!.hash });
    });

    it('final states leave the due index and clear the lease', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      const [l] = await a.claimDue('w1', T0, 1000, 10, new Map());
      expect(await a.commit(l!, { patch: {}, history: [line('cancelled', 'cancel_intent')], audit: [] })).toBe('ok');
      const r = (await a.get('op1'))!;
      expect([r.state, r.next_poll_at, r.lease_owner]).toEqual(['cancelled', null, null]);
      expect(await a.countOpen()).toBe(0);
      expect(await a.hasOpen()).toBe(false);
      expect(await a.nextWakeAt('w1', T0)).toBeNull();
      expect((await a.history('op1')).map((x) => [x.from, x.to])).toEqual([
        [null, 'create_pending'],
        ['create_pending', 'cancelled'],
      ]);
    });

    it('a final commit whose patch also schedules a poll still leaves the schedule (found on PostgreSQL by certify)', async () => {
      await a.insertOperation(row('op1', T0), 'w', []);
      const [l] = await a.claimDue('w1', T0, 1000, 10, new Map());
      const h = line('cancelled', 'cancel_intent');
      expect(await a.commit(l!, { patch: { next_poll_at: T0 + 5, not_before: T0 + 1.5 }, history: [h], audit: [] })).toBe('ok');
      const r = (await a.get('op1'))!;
      expect([r.state, r.next_poll_at, r.lease_owner]).toEqual(['cancelled', null, null]);
      expect(r.not_before).toBeGreaterThanOrEqual(T0 + 1.5);
    });

    it('pollSoon never undercuts the Retry-After hold, and only brings the next poll forward', async () => {
      await a.insertOperation(row('op1', T0, { next_poll_at: T0 + 10_000, not_before: T0 + 5_000 }), 'w', []);
      await a.pollSoon('op1', T0 + 1);
      expect((await a.get('op1'))!.next_poll_at).toBe(T0 + 5_000);
      await a.pollSoon('op1', T0 + 8_000);
      expect((await a.get('op1'))!.next_poll_at).toBe(T0 + 5_000);
    });

    it('finds an operation by its remote job id', async () => {
      await a.insertOperation(row('op1', T0, { remote_job_id: 'job_1' }), 'w', []);
      expect((await b.findByRemoteJobId('job_1'))!.operation_id).toBe('op1');
      expect(await b.findByRemoteJobId('job_2')).toBeUndefined();
    });

    it('picks due operations through the index, not a scan, with 10,000 open', async () => {
      await h.bulkInsert(10_000);
      if (h.duePlan) expect(await h.duePlan()).toMatch(backend!.planUsesIndex!);
      const leases = await a.claimDue('w1', T0 + 4_500, 1000, 16, new Map());
      expect(leases.map((l) => l.operation_id)).toEqual(['op0', 'op1', 'op2', 'op3', 'op4']);
      expect(await a.nextWakeAt('w1', T0 + 4_500)).toBe(T0 + 5_000);
    });
  });
}
