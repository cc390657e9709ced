import type pg from 'pg';
import { isoTime } from '../../lib/clock.js';
import { chain, GENESIS_HASH } from '../audit.js';
import type { NewOperationRow } from '../new-operation-row.js';
import { submitLine } from '../state-machine.js';
import type { AuditInput, AuditRow, CancelIntent, OperationRow, StoredHistoryEntry } from '../types.js';
import type { CommitOutcome, FencedChange, InsertOutcome, Lease, OperationStore } from './operation-store.js';
import { migratePg } from './pg-migrate.js';
import { inTx, openPool } from './pg-pool.js';
import { PG_OPERATION_MIGRATIONS } from './pg-schema.js';
import { appendHistoryPg, historyFromRow } from './pg-history.js';
import { planCommit } from './patch.js';
import { COLUMNS, fromDb, toDb } from './sqlite-schema.js';

type Q = pg.Pool | pg.PoolClient;

/**
 * Times and counters are BIGINT/INTEGER columns; a scaled clock or a Retry-After of 1.5 s can make a fractional
 * millisecond, which SQLite stores as it is and PostgreSQL refuses. Rounded up: a hold is never shortened.
 */
const ms = (x: number) => Math.ceil(x);
const pgValue = (v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Math.ceil(v) : v);

/**
 * PostgreSQL backend for a fleet of workers on many machines. READ COMMITTED with explicit row locks: a claim takes
 * due rows `FOR UPDATE SKIP LOCKED` (two workers never wait on, nor take, the same row), a fenced commit locks its
 * row and compares (owner, token) before writing, and the database's fence triggers refuse a stale write even if
 * this code were wrong (pg-schema.ts). The audit head row is locked last in every transaction, so lock order is
 * always operation rows → audit head and no deadlock can form.
 */
export class PgOperationStore implements OperationStore {
  readonly pool: pg.Pool;
  private ready: Promise<void> | null = null;

  /** `leaseMs`: a session idle in a transaction (a paused process) is ended after half of it, so takeovers happen. */
  constructor(
    url: string,
    readonly schema: string,
    opts: { poolSize?: number; leaseMs?: number } = {},
  ) {
    this.pool = openPool(url, schema, opts.poolSize ?? 4, Math.min(2000, (opts.leaseMs ?? 4000) / 2));
  }

  /** Migrate on first use; a failure (database down) is retried by the next call rather than remembered. */
  private async db(): Promise<pg.Pool> {
    this.ready ??= migratePg(this.pool, this.schema, PG_OPERATION_MIGRATIONS).catch((err) => {
      this.ready = null;
      throw err;
    });
    await this.ready;
    return this.pool;
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTx(await this.db(), fn);
  }

  async insertOperation(row: NewOperationRow, actor: string, audit: AuditInput[]): Promise<InsertOutcome> {
    return this.tx(async (c) => {
      const first = submitLine(isoTime(row.submitted_at), actor);
      const values: unknown[] = COLUMNS.map((k) => pgValue(toDb(k, k === 'state' ? first.to : row[k])));
      values.push(1);
      const params = values.map((_, i) => `$${i + 1}`).join(', ');
      const r = await c.query(
        `INSERT INTO operations (${COLUMNS.join(', ')}, is_open) VALUES (${params}) ON CONFLICT (operation_id) DO NOTHING`,
        values,
      );
      if (r.rowCount === 0) return 'exists';
      await appendHistoryPg(c, row.operation_id, [first], null, 0, row.fencing_token);
      await appendAuditTx(c, audit);
      return 'inserted';
    });
  }

  async get(operationId: string): Promise<OperationRow | undefined> {
    const r = await (await this.db()).query('SELECT * FROM operations WHERE operation_id = $1', [operationId]);
    return r.rows[0] ? fromDb(r.rows[0]) : undefined;
  }

  async findByRemoteJobId(jobId: string): Promise<OperationRow | undefined> {
    const r = await (await this.db()).query('SELECT * FROM operations WHERE remote_job_id = $1 LIMIT 1', [jobId]);
    return r.rows[0] ? fromDb(r.rows[0]) : undefined;
  }

  async history(operationId: string): Promise<StoredHistoryEntry[]> {
    const r = await (await this.db()).query('SELECT * FROM history WHERE operation_id = $1 ORDER BY seq', [operationId]);
    return r.rows.map(historyFromRow);
  }

  async recordCancelIntent(operationId: string, intent: CancelIntent, audit: AuditInput[]): Promise<boolean> {
    return this.tx(async (c) => {
      const found = await c.query('SELECT 1 FROM operations WHERE operation_id = $1 FOR UPDATE', [operationId]);
      if (!found.rowCount) return false;
      // The first intent wins: a second cancel must not move the deadline or make a second owner send again.
      await c.query(
        'UPDATE operations SET cancel = $1, next_poll_at = GREATEST($2::bigint, not_before) WHERE operation_id = $3 AND cancel IS NULL AND is_open = 1',
        [JSON.stringify(intent), ms(intent.requested_at), operationId],
      );
      await appendAuditTx(c, audit);
      return true;
    });
  }

  async claimDue(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    held: ReadonlyMap<string, number>,
    busy: ReadonlySet<string> = new Set(),
  ): Promise<Lease[]> {
    return this.tx(async (c) => {
      // One statement: pick due rows FOR UPDATE SKIP LOCKED (a row another worker is claiming or committing right
      // now is simply not ours this turn) and lease them; a lease we still hold at the token we know keeps its
      // token, any other is taken with the next one. next_poll_at one lease ahead: out of the due set while we step
      // it, due again exactly when a dead owner's lease ends.
      const expires = ms(now + leaseMs);
      const r = await c.query<{ operation_id: string; fencing_token: number; prev_owner: string | null; due_at: number }>(
        `WITH due AS (
           SELECT operation_id, lease_owner, fencing_token, next_poll_at FROM operations
           WHERE is_open = 1 AND next_poll_at <= $1 AND (lease_owner IS NULL OR lease_expires_at <= $1 OR lease_owner = $2)
             AND NOT (operation_id = ANY($7::text[]))
           ORDER BY next_poll_at LIMIT $3 FOR UPDATE SKIP LOCKED
         ), held AS (SELECT * FROM unnest($4::text[], $5::bigint[]) AS h(id, token))
         UPDATE operations o SET lease_owner = $2, lease_expires_at = $6, next_poll_at = $6,
           fencing_token = CASE WHEN due.lease_owner = $2 AND held.token = due.fencing_token THEN due.fencing_token ELSE due.fencing_token + 1 END
         FROM due LEFT JOIN held ON held.id = due.operation_id
         WHERE o.operation_id = due.operation_id
         RETURNING o.operation_id, o.fencing_token, due.fencing_token AS prev_token, due.lease_owner AS prev_owner, due.next_poll_at AS due_at`,
        [ms(now), owner, limit, [...held.keys()], [...held.values()], expires, [...busy]],
      );
      const rows = r.rows.sort((a, b) => a.due_at - b.due_at || (a.operation_id < b.operation_id ? -1 : 1));
      const taken: AuditInput[] = rows
        .filter((d) => !(d.prev_owner === owner && held.get(d.operation_id) === d.fencing_token))
        .map((d) => ({
          at: now,
          actor: owner,
          kind: 'lease',
          operation_id: d.operation_id,
          detail: { taken_from: d.prev_owner, fencing_token: d.fencing_token },
        }));
      await appendAuditTx(c, taken);
      return rows.map((d) => ({ operation_id: d.operation_id, owner, token: d.fencing_token, expires_at: expires }));
    });
  }

  async renew(lease: Lease, now: number, leaseMs: number): Promise<boolean> {
    const r = await (await this.db()).query(
      'UPDATE operations SET lease_expires_at = $1 WHERE operation_id = $2 AND lease_owner = $3 AND fencing_token = $4 AND is_open = 1',
      [ms(now + leaseMs), lease.operation_id, lease.owner, lease.token],
    );
    if (r.rowCount === 1) lease.expires_at = ms(now + leaseMs);
    return r.rowCount === 1;
  }

  async release(lease: Lease): Promise<void> {
    await (await this.db()).query(
      'UPDATE operations SET lease_owner = NULL, lease_expires_at = NULL WHERE operation_id = $1 AND lease_owner = $2 AND fencing_token = $3',
      [lease.operation_id, lease.owner, lease.token],
    );
  }

  async commit(lease: Lease, change: FencedChange): Promise<CommitOutcome> {
    return this.tx(async (c) => {
      // Lock the row and declare the lease to the database (its fence triggers check it on every write below).
      const r = await c.query<{
        state: OperationRow['state'];
        lease_owner: string | null;
        fencing_token: number;
        cancel: string | null;
        is_open: number;
      }>(
        "SELECT state, lease_owner, fencing_token, cancel, is_open, set_config('jobproof.fence', $2, true) FROM operations WHERE operation_id = $1 FOR UPDATE",
        [lease.operation_id, `${lease.owner}:${lease.token}`],
      );
      const cur = r.rows[0];
      if (!cur || cur.lease_owner !== lease.owner || cur.fencing_token !== lease.token || cur.is_open !== 1) return 'lease_lost';
      if (change.requireNoCancel && cur.cancel !== null) return 'cancel_recorded';
      const plan = planCommit(cur.state, change);
      const sets: string[] = [];
      const values: unknown[] = [lease.operation_id];
      for (const [k, v] of plan.sets) {
        values.push(pgValue(toDb(k, v)));
        sets.push(`${k} = $${values.length}`);
      }
      if (plan.final) sets.push('is_open = 0');
      // History first: its fence reads the row's lease, which a final commit clears.
      await appendHistoryPg(c, lease.operation_id, change.history, cur.state, null, lease.token);
      if (sets.length) await c.query(`UPDATE operations SET ${sets.join(', ')} WHERE operation_id = $1`, values);
      await appendAuditTx(c, change.audit);
      return 'ok';
    });
  }

  async pollSoon(operationId: string, at: number): Promise<void> {
    // Only ever earlier, never inside the Retry-After hold (same rule as SQLite).
    await (await this.db()).query(
      `UPDATE operations SET next_poll_at = CASE WHEN next_poll_at IS NULL THEN GREATEST($1::bigint, not_before) ELSE LEAST(next_poll_at, GREATEST($1::bigint, not_before)) END
       WHERE operation_id = $2 AND is_open = 1 AND (next_poll_at IS NULL OR next_poll_at > $1)`,
      [ms(at), operationId],
    );
  }

  async hasOpen(): Promise<boolean> {
    return (await (await this.db()).query('SELECT EXISTS(SELECT 1 FROM operations WHERE is_open = 1) AS x')).rows[0].x === true;
  }

  async countOpen(): Promise<number> {
    return (await (await this.db()).query('SELECT COUNT(*)::int AS n FROM operations WHERE is_open = 1')).rows[0].n;
  }

  async nextWakeAt(owner: string, now: number, busy: ReadonlySet<string> = new Set()): Promise<number | null> {
    const r = await (await this.db()).query<{ a: number | null; b: number | null }>(
      `SELECT (SELECT MIN(next_poll_at) FROM operations WHERE is_open = 1 AND (lease_owner IS NULL OR lease_owner = $1 OR lease_expires_at <= $2)
                 AND NOT (operation_id = ANY($3::text[]))) AS a,
              (SELECT MIN(lease_expires_at) FROM operations WHERE is_open = 1 AND lease_owner IS NOT NULL AND lease_owner <> $1 AND lease_expires_at > $2) AS b`,
      [owner, ms(now), [...busy]],
    );
    const ts = [r.rows[0]!.a, r.rows[0]!.b].filter((t): t is number => t !== null);
    return ts.length ? Math.min(...ts) : null;
  }

  async appendAudit(entries: AuditInput[]): Promise<void> {
    if (entries.length) await this.tx((c) => appendAuditTx(c, entries));
  }

  async auditRows(): Promise<AuditRow[]> {
    return (
      await (
        await this.db()
      ).query('SELECT seq::int AS seq, at, actor, kind, operation_id, detail, prev_hash, hash FROM audit ORDER BY seq')
    ).rows as AuditRow[];
  }

  async auditHead(): Promise<{ seq: number; hash: string } | null> {
    const r = await (await this.db()).query<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_head WHERE id = 1');
    const h = r.rows[0];
    return h && h.seq > 0 ? h : null;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

async function appendAuditTx(c: Q, entries: AuditInput[]): Promise<void> {
  if (!entries.length) return;
  const head = (await c.query<{ seq: number; hash: string }>('SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE')).rows[0] ?? {
    seq: 0,
    hash: GENESIS_HASH,
  };
  const rows = chain(head, entries);
  const values: unknown[] = [];
  const tuples = rows.map((r) => {
    values.push(r.seq, r.at, r.actor, r.kind, r.operation_id, r.detail, r.prev_hash, r.hash);
    const b = values.length - 8;
    return `(${Array.from({ length: 8 }, (_, i) => `$${b + i + 1}`).join(', ')})`;
  });
  await c.query(`INSERT INTO audit (seq, at, actor, kind, operation_id, detail, prev_hash, hash) VALUES ${tuples.join(', ')}`, values);
  const last = rows[rows.length - 1]!;
  await c.query('UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1', [last.seq, last.hash]);
}
