import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgOperationStore } from '../../../src/reference-client/store/pg-store.js';
import { dropSchema, pgUrl, uniqueSchema } from '../../helpers/pg.js';
import { row } from '../helpers.js';
import { storeContract, T0 } from './contract.js';

const url = pgUrl();
const DUE = `SELECT operation_id FROM operations WHERE is_open = 1 AND next_poll_at <= 5 AND (lease_owner IS NULL OR lease_expires_at <= 5 OR lease_owner = 'w') ORDER BY next_poll_at LIMIT 5`;

storeContract(
  'PostgreSQL',
  url === null
    ? null
    : {
        planUsesIndex: /operations_due/,
        async open() {
          const schema = uniqueSchema('contract');
          const a = new PgOperationStore(url, schema);
          const b = new PgOperationStore(url, schema); // a second machine on the same database
          await a.hasOpen(); // migrated before either is used concurrently (both would also be safe: advisory lock)
          const raw = async (sql: string) => a.pool.query(sql);
          return {
            a,
            b,
            raw,
            cleanup: () => dropSchema(url, schema),
            bulkInsert: async (n) => {
              await raw(`INSERT INTO operations (operation_id, state, is_open, kind, input, request_fingerprint, idempotency_key, trace_id, submitted_at,
          create_deadline_at, result_deadline_at, next_poll_at, not_before, attempt, poll_count, create_attempts, cancel_sends, collect_attempts, fencing_token)
          SELECT 'op' || i, 'create_pending', 1, 'report', '{}', 'fp', 'idem_' || i, 'tr_' || i, ${T0}, ${T0 + 60_000}, ${T0 + 600_000},
                 ${T0} + i * 1000, 0, 0, 0, 0, 0, 0, 0 FROM generate_series(0, ${n - 1}) AS i`);
              await raw('ANALYZE operations');
            },
            duePlan: async () =>
              ((await raw(`EXPLAIN ${DUE}`)) as pg.QueryResult<{ 'QUERY PLAN': string }>).rows.map((r) => r['QUERY PLAN']).join(' '),
          };
        },
      },
);

describe.skipIf(url === null)('PostgreSQL store: what only the database can guarantee', () => {
  const schema = uniqueSchema('db');
  let s: PgOperationStore;
  beforeAll(async () => {
    s = new PgOperationStore(url!, schema);
    await s.insertOperation(row('op1', T0), 'w', []);
  });
  afterAll(async () => {
    await s.close();
    await dropSchema(url!, schema);
  });

  it('refuses a stale write that bypasses the code: the fence is a trigger', async () => {
    const [l] = await s.claimDue('w1', T0, 1000, 10, new Map());
    // A worker whose lease was taken (token moved on) writes straight to the table, declaring its old lease.
    await s.claimDue('w2', T0 + 2000, 1000, 10, new Map());
    const c = await s.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query("SELECT set_config('jobproof.fence', $1, true)", [`w1:${l!.token}`]);
      await expect(c.query("UPDATE operations SET state = 'accepted' WHERE operation_id = 'op1'")).rejects.toThrow(/stale fencing token/);
      await c.query('ROLLBACK');
      // Without declaring any lease at all: refused too.
      await expect(c.query("UPDATE operations SET remote_job_id = 'job_x' WHERE operation_id = 'op1'")).rejects.toThrow(
        /stale fencing token/,
      );
      await expect(c.query("UPDATE operations SET fencing_token = 0 WHERE operation_id = 'op1'")).rejects.toThrow(/may not go down/);
      await expect(
        c.query(
          `INSERT INTO history (operation_id, seq, at, actor, from_state, to_state, cause, evidence, fencing_token) VALUES ('op1', 2, 'x', 'w1', 'create_pending', 'accepted', 'c', '{}', ${l!.token})`,
        ),
      ).rejects.toThrow(/stale fencing token/);
      // Hints and user facts stay open to anyone.
      await c.query(`UPDATE operations SET next_poll_at = ${T0} WHERE operation_id = 'op1'`);
    } finally {
      c.release();
    }
    expect((await s.get('op1'))!.state).toBe('create_pending');
  });

  it('refuses TRUNCATE of history and audit', async () => {
    await expect(s.pool.query('TRUNCATE history')).rejects.toThrow(/append-only|cannot truncate/);
    await expect(s.pool.query('TRUNCATE audit')).rejects.toThrow(/append-only/);
  });

  it('keeps each JOBPROOF_STATE in its own schema', async () => {
    const other = new PgOperationStore(url!, uniqueSchema('other'));
    try {
      expect(await other.get('op1')).toBeUndefined();
      expect(await other.hasOpen()).toBe(false);
    } finally {
      await other.close();
      await dropSchema(url!, other.schema);
    }
  });
});
