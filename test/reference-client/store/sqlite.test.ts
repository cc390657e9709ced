import { expect, it } from 'vitest';
import { SqliteOperationStore } from '../../../src/reference-client/store/sqlite-store.js';
import { row, tempDir } from '../helpers.js';
import { storeContract, T0 } from './contract.js';

const DUE = `SELECT operation_id FROM operations WHERE is_open = 1 AND next_poll_at <= 5 AND (lease_owner IS NULL OR lease_expires_at <= 5 OR lease_owner = 'w') ORDER BY next_poll_at LIMIT 5`;

storeContract('SQLite', {
  planUsesIndex: /USING INDEX operations_due/,
  async open() {
    const t = tempDir();
    const a = SqliteOperationStore.open(t.dir);
    const b = SqliteOperationStore.open(t.dir); // a second process on the same file
    return {
      a,
      b,
      raw: async (sql) => a.raw.prepare(sql).run(),
      cleanup: async () => t.cleanup(),
      bulkInsert: async (n) => {
        a.raw.transaction(() => {
          for (let i = 0; i < n; i++) void a.insertOperation(row(`op${i}`, T0, { next_poll_at: T0 + i * 1000 }), 'w', []);
        })();
      },
      duePlan: async () => (a.raw.prepare(`EXPLAIN QUERY PLAN ${DUE}`).all() as { detail: string }[]).map((p) => p.detail).join(' '),
    };
  },
});

it('SQLite store uses WAL and a busy timeout', async () => {
  const t = tempDir();
  const a = SqliteOperationStore.open(t.dir);
  expect(a.raw.pragma('journal_mode', { simple: true })).toBe('wal');
  expect(a.raw.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
  await a.close();
  t.cleanup();
});

it('a poll that finds nothing due does not wait on the write lock another worker holds', async () => {
  const t = tempDir();
  const a = SqliteOperationStore.open(t.dir);
  const b = SqliteOperationStore.open(t.dir);
  a.raw.pragma('busy_timeout = 100'); // fail fast, not after the store's 10 s, if it waits
  await a.insertOperation(row('op1', T0, { next_poll_at: T0 + 60_000 }), 'w', []);
  // b stopped inside a write transaction, as a worker paused mid-commit is.
  b.raw.prepare('BEGIN IMMEDIATE').run();
  expect(await a.claimDue('w', T0, 500, 4, new Map())).toEqual([]);
  await expect(a.claimDue('w', T0 + 60_000, 500, 4, new Map())).rejects.toThrow(/busy|locked/i);
  b.raw.prepare('ROLLBACK').run();
  const [lease] = await a.claimDue('w', T0 + 60_000, 500, 4, new Map());
  expect(lease).toMatchObject({ operation_id: 'op1', token: 1 });
  // Renewal and release run unsynced; every other write after them is synced again.
  expect(await a.renew(lease!, T0 + 60_100, 500)).toBe(true);
  expect(a.raw.pragma('synchronous', { simple: true })).toBe(2);
  await a.release(lease!);
  expect(a.raw.pragma('synchronous', { simple: true })).toBe(2);
  expect((await a.get('op1'))!.lease_owner).toBeNull();
  await Promise.all([a.close(), b.close()]);
  t.cleanup();
});
