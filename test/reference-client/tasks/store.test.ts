import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PgTaskStore } from '../../../src/reference-client/tasks/pg-store.js';
import { SqliteTaskStore, type TaskStore } from '../../../src/reference-client/tasks/store.js';
import { TaskLeaseLostError } from '../../../src/reference-client/tasks/lease.js';
import type { TaskOpRow, TaskPatch } from '../../../src/reference-client/tasks/types.js';
import { dropSchema, pgUrl, uniqueSchema } from '../../helpers/pg.js';

const url = pgUrl();
const row = (id: string, over: Partial<TaskOpRow> = {}): TaskOpRow => ({
  task_op_id: id,
  state: 'create_pending',
  type: 'propose_update',
  object_ref: 'inv-1',
  object_version: 1,
  input: {},
  create_key: `tcreate_${id}`,
  apply_key: null,
  trace_id: `tr_${id}`,
  task_id: null,
  initiator: null,
  proposal_version: null,
  approval: null,
  application: null,
  reason: null,
  create_attempts: 0,
  apply_attempts: 0,
  read_failures: 0,
  submitted_at: 0,
  deadline_at: 1000,
  updated_at: 0,
  ...over,
});
const h = (to: TaskOpRow['state'], cause = 'c') => ({ at: '2026-01-01T00:00:00.000Z', to, cause });

interface Backend {
  open(): Promise<{ s: TaskStore; raw(sql: string): Promise<unknown>; cleanup(): Promise<void> }>;
}

const backends: [string, Backend | null][] = [
  [
    'SQLite',
    {
      async open() {
        const dir = mkdtempSync(join(tmpdir(), 'jp-ts-'));
        const s = SqliteTaskStore.open(dir);
        const raw = new Database(join(dir, 'tasks.db'));
        return {
          s,
          raw: async (sql) => raw.prepare(sql).run(),
          cleanup: async () => {
            raw.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
  ],
  [
    'PostgreSQL',
    url === null
      ? null
      : {
          async open() {
            const schema = uniqueSchema('tasks');
            const s = new PgTaskStore(url, schema);
            await s.list();
            return { s, raw: (sql) => s.pool.query(sql), cleanup: () => dropSchema(url, schema) };
          },
        },
  ],
];

/** The task store's contract, unchanged on both backends. */
for (const [name, backend] of backends) {
  describe.skipIf(!backend)(`TaskStore contract: ${name}`, () => {
    let s: TaskStore;
    let raw: (sql: string) => Promise<unknown>;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ s, raw, cleanup } = await backend!.open());
    });
    afterEach(async () => {
      await s.close();
      await cleanup();
    });

    it('inserts once, lists in order, keeps history with from-states', async () => {
      expect(await s.insert(row('a'), { create_key: 'k' })).toBe('inserted');
      expect(await s.insert(row('a', { object_ref: 'other' }), {})).toBe('exists');
      await s.insert(row('b'), {});
      await s.change((await s.claim('a', 'w1', 0, 1000, null))!, { task_id: 't1' }, h('waiting', 'created'));
      expect((await s.list()).map((r) => [r.task_op_id, r.state, r.task_id])).toEqual([
        ['a', 'waiting', 't1'],
        ['b', 'create_pending', null],
      ]);
      expect((await s.history('a')).map((x) => [x.seq, x.from, x.to, x.cause])).toEqual([
        [1, null, 'create_pending', 'submit'],
        [2, 'create_pending', 'waiting', 'created'],
      ]);
      expect((await s.history('a'))[0]!.evidence).toEqual({ create_key: 'k' });
    });

    it('moves a state only by history the transition table allows; a patch may not name it', async () => {
      await s.insert(row('a', { state: 'applied' }), {});
      expect((await s.get('a'))!.state).toBe('create_pending');
      const l = (await s.claim('a', 'w1', 0, 1000, null))!;
      await expect(s.change(l, { reason: 'x' }, h('applied'))).rejects.toThrow(/not allowed/);
      for (const patch of [{ state: 'applied' }, { create_key: 'other' }, { task_op_id: 'b' }, { fencing_token: 9 }])
        await expect(s.change(l, patch as TaskPatch)).rejects.toThrow(/may not write/);
      const r = (await s.get('a'))!;
      expect([r.state, r.reason, r.create_key]).toEqual(['create_pending', null, 'tcreate_a']);
      expect(await s.history('a')).toHaveLength(1);
    });

    it('never replaces an apply key, never changes a final operation', async () => {
      await s.insert(row('a'), {});
      const l = (await s.claim('a', 'w1', 0, 1000, null))!;
      await s.change(l, { task_id: 't1' }, h('waiting'));
      await s.change(l, { apply_key: 'tapply_1' }, h('applying'));
      expect((await s.change(l, { apply_key: 'tapply_2' })).apply_key).toBe('tapply_1');
      await s.change(l, {}, h('applied'));
      await expect(s.change(l, { reason: 'x' })).rejects.toThrow(/final/);
      expect(await s.claim('a', 'w1', 0, 1000, null)).toBeNull();
      await expect(s.change({ ...l, task_op_id: 'nope' }, {})).rejects.toThrow(/unknown/);
    });

    it('fences every change on the lease: a taken-over worker writes nothing; a live lease is not taken', async () => {
      await s.insert(row('a'), {});
      const la = (await s.claim('a', 'wA', 0, 1000, null))!;
      expect(await s.claim('a', 'wB', 500, 1000, null)).toBeNull();
      expect(await s.claim('a', 'wA', 600, 1000, la.token)).toMatchObject({ token: la.token });
      const lb = (await s.claim('a', 'wB', 1_601, 1000, null))!;
      expect(lb.token).toBe(la.token + 1);
      await expect(s.change(la, { reason: 'stale' }, h('waiting'))).rejects.toThrow(TaskLeaseLostError);
      expect(await s.renew(la, 1_700, 1000)).toBe(false);
      await s.release(la);
      expect((await s.change(lb, { task_id: 't1' }, h('waiting'))).state).toBe('waiting');
      const r = (await s.get('a'))!;
      expect([r.state, r.reason, r.lease_owner]).toEqual(['waiting', null, 'wB']);
      expect((await s.history('a')).map((x) => x.to)).toEqual(['create_pending', 'waiting']);
      await s.release(lb);
      expect((await s.get('a'))!.lease_owner).toBeNull();
    });

    it('keeps history append-only in the database', async () => {
      await s.insert(row('a'), {});
      await expect(raw("UPDATE task_history SET cause = 'x'")).rejects.toThrow(/append-only/);
      await expect(raw('DELETE FROM task_history')).rejects.toThrow(/append-only/);
    });
  });
}
