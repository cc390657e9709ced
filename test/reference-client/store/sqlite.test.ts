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
