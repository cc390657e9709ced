import { expect, it } from 'vitest';
import { openRunMemoryStore } from '../../../src/reference-client/store/run-memory.js';
import { row } from '../helpers.js';
import { storeContract, T0 } from './contract.js';

const DUE = `SELECT operation_id FROM operations WHERE is_open = 1 AND next_poll_at <= 5 AND (lease_owner IS NULL OR lease_expires_at <= 5 OR lease_owner = 'w') ORDER BY next_poll_at LIMIT 5`;
let runs = 0;

storeContract('SQLite in memory, one in-process run', {
  planUsesIndex: /USING INDEX operations_due/,
  async open() {
    const state = `/nonexistent/run-${++runs}`;
    const a = openRunMemoryStore(state);
    const b = openRunMemoryStore(state); // a second worker of the same run
    const db = (a as unknown as { raw: import('better-sqlite3').Database }).raw;
    return {
      a,
      b,
      raw: async (sql) => db.prepare(sql).run(),
      cleanup: async () => undefined,
      bulkInsert: async (n) => {
        db.transaction(() => {
          for (let i = 0; i < n; i++) void a.insertOperation(row(`op${i}`, T0, { next_poll_at: T0 + i * 1000 }), 'w', []);
        })();
      },
      duePlan: async () => (db.prepare(`EXPLAIN QUERY PLAN ${DUE}`).all() as { detail: string }[]).map((p) => p.detail).join(' '),
    };
  },
});

it('keeps a run store while any of its clients is open, and only then lets it go', async () => {
  const a = openRunMemoryStore('/nonexistent/shared');
  const b = openRunMemoryStore('/nonexistent/shared');
  const other = openRunMemoryStore('/nonexistent/other-run');
  await a.insertOperation(row('op1', T0), 'w', []);
  expect(await other.get('op1')).toBeUndefined();
  // A worker of the run closes (or was killed and closed at the end): the others still see everything.
  await a.close();
  await a.close();
  expect(await b.get('op1')).toEqual(row('op1', T0));
  const c = openRunMemoryStore('/nonexistent/shared');
  expect(await c.get('op1')).toEqual(row('op1', T0));
  await b.close();
  await c.close();
  // The run is over: a new one on the same state starts empty (a migrated store, no file left behind).
  const d = openRunMemoryStore('/nonexistent/shared');
  expect(await d.get('op1')).toBeUndefined();
  expect(await d.countOpen()).toBe(0);
  await d.close();
  await other.close();
});
