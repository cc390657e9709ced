import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isoTime } from '../../lib/clock.js';
import type { NewOperationRow } from '../new-operation-row.js';
import { submitLine } from '../state-machine.js';
import type { AuditInput, AuditRow, CancelIntent, OperationRow, StoredHistoryEntry } from '../types.js';
import type { CommitOutcome, FencedChange, InsertOutcome, Lease, OperationStore } from './operation-store.js';
import { planCommit } from './patch.js';
import { appendAudit, auditHead } from './sqlite-audit.js';
import { COLUMNS, fromDb, SQLITE_OPERATION_MIGRATIONS, toDb } from './sqlite-schema.js';
import { appendHistory, historyFromDb } from './sqlite-history.js';
import { migrateSqlite, refuseNewerSqlite } from '../../lib/sqlite-migrations.js';
import { migratedSqliteImage } from './sqlite-migrate.js';

type Db = Database.Database;

/**
 * SQLite backend: WAL so readers never block the writer, busy_timeout so concurrent workers queue, not fail. The
 * work is synchronous (better-sqlite3); the methods are async only to share the interface with PostgreSQL.
 */
export class SqliteOperationStore implements OperationStore {
  private readonly db: Db;

  /**
   * `':memory:'` starts from a copy of a migrated empty store and survives nothing: only for a client whose process
   * is never crashed while its state matters (in-process runs, see run-memory.ts).
   */
  constructor(file: string) {
    if (file === ':memory:') {
      this.db = new Database(migratedSqliteImage());
      return;
    }
    this.db = new Database(file);
    refuseNewerSqlite(this.db, file, SQLITE_OPERATION_MIGRATIONS);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    // FULL: a state change acknowledged to the provider-facing logic must survive a SIGKILL or power cut.
    this.db.pragma('synchronous = FULL');
    migrateSqlite(this.db, file, SQLITE_OPERATION_MIGRATIONS);
  }

  static open(stateDir: string): SqliteOperationStore {
    mkdirSync(stateDir, { recursive: true });
    return new SqliteOperationStore(join(stateDir, 'client.db'));
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared statements are cached: preparing dominates the cost of the small queries a worker makes. */
  private q(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /**
   * BEGIN IMMEDIATE: take the write lock up front so a read-then-write is never based on a stale read. Prepared
   * BEGIN/COMMIT rather than `db.transaction(fn)`, which builds a new wrapper on every call (a visible share of an
   * in-process schedule). Inside a caller's transaction (a bulk insert through `raw`) it is better-sqlite3's
   * savepoint, as before.
   */
  private tx<T>(fn: () => T): T {
    if (this.db.inTransaction) return this.db.transaction(fn).immediate();
    this.q('BEGIN IMMEDIATE').run();
    try {
      const result = fn();
      this.q('COMMIT').run();
      return result;
    } catch (err) {
      // SQLite may already have rolled back (e.g. a full disk); otherwise nothing of the method stays.
      if (this.db.inTransaction) this.q('ROLLBACK').run();
      throw err;
    }
  }

  async insertOperation(row: NewOperationRow, actor: string, audit: AuditInput[]): Promise<InsertOutcome> {
    return this.tx(() => {
      if (this.q('SELECT 1 FROM operations WHERE operation_id = ?').get(row.operation_id)) return 'exists';
      const first = submitLine(isoTime(row.submitted_at), actor);
      const cols = COLUMNS.join(', ');
      const params = COLUMNS.map((c) => `@${c}`).join(', ');
      const values: Record<string, unknown> = { is_open: 1 };
      for (const c of COLUMNS) values[c] = toDb(c, c === 'state' ? first.to : row[c]);
      this.q(`INSERT INTO operations (${cols}, is_open) VALUES (${params}, @is_open)`).run(values);
      appendHistory((sql) => this.q(sql), row.operation_id, [first], null);
      this.appendAuditTx(audit);
      return 'inserted';
    });
  }

  async get(operationId: string): Promise<OperationRow | undefined> {
    return this.getSync(operationId);
  }

  private getSync(operationId: string): OperationRow | undefined {
    const raw = this.q('SELECT * FROM operations WHERE operation_id = ?').get(operationId) as Record<string, unknown> | undefined;
    return raw ? fromDb(raw) : undefined;
  }

  async findByRemoteJobId(jobId: string): Promise<OperationRow | undefined> {
    const raw = this.q('SELECT * FROM operations WHERE remote_job_id = ?').get(jobId) as Record<string, unknown> | undefined;
    return raw ? fromDb(raw) : undefined;
  }

  async history(operationId: string): Promise<StoredHistoryEntry[]> {
    const rows = this.q('SELECT * FROM history WHERE operation_id = ? ORDER BY seq').all(operationId) as Record<string, string | null>[];
    return rows.map(historyFromDb);
  }

  async recordCancelIntent(operationId: string, intent: CancelIntent, audit: AuditInput[]): Promise<boolean> {
    return this.tx(() => {
      if (!this.q('SELECT 1 FROM operations WHERE operation_id = ?').get(operationId)) return false;
      // The first intent wins: a second cancel must not move the deadline or make a second owner send again.
      this.q(
        'UPDATE operations SET cancel = ?, next_poll_at = MAX(?, not_before) WHERE operation_id = ? AND cancel IS NULL AND is_open = 1',
      ).run(JSON.stringify(intent), intent.requested_at, operationId);
      this.appendAuditTx(audit);
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
    const dueNow = () =>
      this.q(
        `SELECT operation_id, lease_owner, fencing_token FROM operations
           WHERE is_open = 1 AND next_poll_at <= @now AND (lease_owner IS NULL OR lease_expires_at <= @now OR lease_owner = @owner)
             AND operation_id NOT IN (SELECT value FROM json_each(@busy))
           ORDER BY next_poll_at LIMIT @limit`,
      ).all({ now, owner, limit, busy: JSON.stringify([...busy]) }) as {
        operation_id: string;
        lease_owner: string | null;
        fencing_token: number;
      }[];
    // Most polls find nothing due: a WAL read answers that without the write lock, which a worker paused inside this
    // transaction would hold against every other worker.
    if (!this.db.inTransaction && dueNow().length === 0) return [];
    return this.tx(() => {
      const due = dueNow();
      const expires = now + leaseMs;
      const leases: Lease[] = [];
      for (const d of due) {
        const mine = d.lease_owner === owner && held.get(d.operation_id) === d.fencing_token;
        const token = mine ? d.fencing_token : d.fencing_token + 1;
        // Pushing next_poll_at one lease ahead takes the operation out of the due set while we step it; if we die,
        // a successor finds it due exactly when our lease runs out.
        this.q(
          'UPDATE operations SET lease_owner = ?, lease_expires_at = ?, fencing_token = ?, next_poll_at = ? WHERE operation_id = ? AND fencing_token = ?',
        ).run(owner, expires, token, expires, d.operation_id, d.fencing_token);
        leases.push({ operation_id: d.operation_id, owner, token, expires_at: expires });
        if (!mine) {
          this.appendAuditTx([
            {
              at: now,
              actor: owner,
              kind: 'lease',
              operation_id: d.operation_id,
              detail: { taken_from: d.lease_owner, fencing_token: token },
            },
          ]);
        }
      }
      return leases;
    });
  }

  /**
   * Lease bookkeeping is not synced: a renewal or release lost to a power cut only changes when a lease whose holders
   * died with it runs out. An fsync would hold the write lock as long as the disk takes, several times a second; a
   * worker paused inside it would stall every other worker.
   */
  private unsynced<T>(fn: () => T): T {
    this.db.pragma('synchronous = NORMAL');
    try {
      return fn();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  async renew(lease: Lease, now: number, leaseMs: number): Promise<boolean> {
    const sql =
      'UPDATE operations SET lease_expires_at = ? WHERE operation_id = ? AND lease_owner = ? AND fencing_token = ? AND is_open = 1';
    const r = this.unsynced(() => this.q(sql).run(now + leaseMs, lease.operation_id, lease.owner, lease.token));
    if (r.changes === 1) lease.expires_at = now + leaseMs;
    return r.changes === 1;
  }

  async release(lease: Lease): Promise<void> {
    const sql =
      'UPDATE operations SET lease_owner = NULL, lease_expires_at = NULL WHERE operation_id = ? AND lease_owner = ? AND fencing_token = ?';
    this.unsynced(() => this.q(sql).run(lease.operation_id, lease.owner, lease.token));
  }

  async commit(lease: Lease, change: FencedChange): Promise<CommitOutcome> {
    return this.tx(() => {
      const cur = this.q('SELECT state, lease_owner, fencing_token, cancel, is_open FROM operations WHERE operation_id = ?').get(
        lease.operation_id,
      ) as
        | { state: OperationRow['state']; lease_owner: string | null; fencing_token: number; cancel: string | null; is_open: number }
        | undefined;
      if (!cur || cur.lease_owner !== lease.owner || cur.fencing_token !== lease.token || cur.is_open !== 1) return 'lease_lost';
      if (change.requireNoCancel && cur.cancel !== null) return 'cancel_recorded';
      const plan = planCommit(cur.state, change);
      const sets: string[] = [];
      const values: Record<string, unknown> = { id: lease.operation_id };
      for (const [k, v] of plan.sets) {
        sets.push(`${k} = @${k}`);
        values[k] = toDb(k, v);
      }
      if (plan.final) sets.push('is_open = 0');
      if (sets.length) this.q(`UPDATE operations SET ${sets.join(', ')} WHERE operation_id = @id`).run(values);
      appendHistory((sql) => this.q(sql), lease.operation_id, change.history, cur.state);
      this.appendAuditTx(change.audit);
      return 'ok';
    });
  }

  async pollSoon(operationId: string, at: number): Promise<void> {
    // Only ever earlier: a webhook must not push back a step already planned (such as giving up at a deadline
    // inside a Retry-After hold, which sends nothing).
    this.q(
      'UPDATE operations SET next_poll_at = CASE WHEN next_poll_at IS NULL THEN MAX(?, not_before) ELSE MIN(next_poll_at, MAX(?, not_before)) END WHERE operation_id = ? AND is_open = 1 AND (next_poll_at IS NULL OR next_poll_at > ?)',
    ).run(at, at, operationId, at);
  }

  async hasOpen(): Promise<boolean> {
    return (this.q('SELECT EXISTS(SELECT 1 FROM operations WHERE is_open = 1) AS x').get() as { x: number }).x === 1;
  }

  async countOpen(): Promise<number> {
    return (this.q('SELECT COUNT(*) AS n FROM operations WHERE is_open = 1').get() as { n: number }).n;
  }

  async nextWakeAt(owner: string, now: number, busy: ReadonlySet<string> = new Set()): Promise<number | null> {
    const a = this.q(
      'SELECT MIN(next_poll_at) AS t FROM operations WHERE is_open = 1 AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at <= ?) AND operation_id NOT IN (SELECT value FROM json_each(?))',
    ).get(owner, now, JSON.stringify([...busy])) as { t: number | null };
    const b = this.q(
      'SELECT MIN(lease_expires_at) AS t FROM operations WHERE is_open = 1 AND lease_owner IS NOT NULL AND lease_owner != ? AND lease_expires_at > ?',
    ).get(owner, now) as { t: number | null };
    const ts = [a.t, b.t].filter((t): t is number => t !== null);
    return ts.length ? Math.min(...ts) : null;
  }

  async appendAudit(entries: AuditInput[]): Promise<void> {
    this.tx(() => this.appendAuditTx(entries));
  }

  async auditRows(): Promise<AuditRow[]> {
    return this.q('SELECT * FROM audit ORDER BY seq').all() as AuditRow[];
  }

  async auditHead(): Promise<{ seq: number; hash: string } | null> {
    return this.headSync();
  }

  private headSync(): { seq: number; hash: string } | null {
    return auditHead((sql) => this.q(sql));
  }

  /** Raw handle for tests that play the attacker (tamper with the audit) or inspect query plans. */
  get raw(): Db {
    return this.db;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private appendAuditTx(entries: AuditInput[]): void {
    appendAudit((sql) => this.q(sql), entries);
  }
}
