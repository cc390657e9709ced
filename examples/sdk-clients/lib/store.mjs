// A small durable record of operations for the example clients: one SQLite file in JOBPROOF_STATE (WAL, one
// transaction per state change), the record client-protocol.md's `show` prints, leases with a fencing token.
import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const FINAL = new Set([
  'succeeded',
  'failed',
  'cancelled',
  'cancellation_unconfirmed',
  'result_timed_out',
  'result_unavailable',
  'result_validation_failed',
  'needs_attention',
]);
export const isFinal = (s) => FINAL.has(s);

export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

export class Store {
  constructor(dir) {
    mkdirSync(dir, { recursive: true });
    this.db = new Database(join(dir, 'operations.db'), { timeout: 10_000 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(`CREATE TABLE IF NOT EXISTS ops (
      id TEXT PRIMARY KEY, request TEXT NOT NULL, fingerprint TEXT NOT NULL, trace_id TEXT NOT NULL,
      state TEXT NOT NULL, batch_id TEXT, result TEXT, history TEXT NOT NULL, cancel TEXT,
      submitted_at INTEGER NOT NULL, due_at INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
      first_attempt_at INTEGER, create_open INTEGER NOT NULL DEFAULT 0, cancel_sent_at INTEGER, cancel_at INTEGER, polls INTEGER NOT NULL DEFAULT 0,
      owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0, fence INTEGER NOT NULL DEFAULT 0)`);
  }

  /** 0 recorded (or the same request again), 3 a changed request for an existing id. */
  submit(req) {
    const fingerprint = `sha256:${createHash('sha256').update(canonical(req)).digest('hex')}`;
    return this.db
      .transaction(() => {
        const old = this.db.prepare('SELECT fingerprint FROM ops WHERE id = ?').get(req.operation_id);
        if (old) return old.fingerprint === fingerprint ? 0 : 3;
        const now = Date.now();
        const history = [
          { at: new Date(now).toISOString(), actor: 'submit', from: null, to: 'create_pending', cause: 'submit', lease_token: null },
        ];
        this.db
          .prepare('INSERT INTO ops (id, request, fingerprint, trace_id, state, history, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(
            req.operation_id,
            JSON.stringify(req),
            fingerprint,
            `tr_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
            'create_pending',
            JSON.stringify(history),
            now,
          );
        return 0;
      })
      .immediate();
  }

  /** Record a cancel intent; false for an unknown operation. */
  cancel(id, intent) {
    const r = this.db
      .prepare('UPDATE ops SET cancel = coalesce(cancel, ?), cancel_at = coalesce(cancel_at, ?), due_at = 0 WHERE id = ?')
      .run(JSON.stringify(intent), Date.now(), id);
    return r.changes > 0;
  }

  get(id) {
    const row = this.db.prepare('SELECT * FROM ops WHERE id = ?').get(id);
    if (!row) return null;
    return {
      ...row,
      request: JSON.parse(row.request),
      history: JSON.parse(row.history),
      result: row.result ? JSON.parse(row.result) : null,
      cancel: row.cancel ? JSON.parse(row.cancel) : null,
    };
  }

  show(id) {
    const o = this.get(id);
    if (!o) return null;
    return {
      operation_id: o.id,
      state: o.state,
      remote_job_id: o.batch_id,
      idempotency_key: '',
      request_fingerprint: o.fingerprint,
      trace_id: o.trace_id,
      result: o.result,
      history: o.history,
    };
  }

  allFinal() {
    return this.db
      .prepare('SELECT id, state FROM ops')
      .all()
      .every((r) => isFinal(r.state));
  }

  /** Batch ids other operations of this store already own (a recovered batch must not be one of them). */
  claimed(exceptId) {
    return new Set(
      this.db
        .prepare('SELECT batch_id FROM ops WHERE batch_id IS NOT NULL AND id != ?')
        .all(exceptId)
        .map((r) => r.batch_id),
    );
  }

  /**
   * Take the lease on one operation that is due: free, expired, or already ours. A new owner gets a higher fence.
   * `lease = false` (the naive clients): every open operation, no lease at all.
   */
  take(worker, leaseMs) {
    const now = Date.now();
    return this.db
      .transaction(() => {
        const rows = this.db.prepare('SELECT id, state, owner, lease_until, due_at FROM ops ORDER BY submitted_at').all();
        const row = rows.find((r) => !isFinal(r.state) && r.due_at <= now && (r.owner === worker || r.lease_until <= now));
        if (!row) return null;
        const fence = row.owner === worker && row.lease_until > now ? undefined : true;
        this.db
          .prepare(`UPDATE ops SET owner = ?, lease_until = ?${fence ? ', fence = fence + 1' : ''} WHERE id = ?`)
          .run(worker, now + leaseMs, row.id);
        return this.get(row.id);
      })
      .immediate();
  }

  /** When the operation is next due (ms), so an idle worker sleeps no longer than needed. */
  nextDue() {
    const r = this.db
      .prepare('SELECT min(due_at) AS d FROM ops WHERE state NOT IN (' + [...FINAL].map(() => '?').join(',') + ')')
      .get(...FINAL);
    return r?.d ?? null;
  }

  /**
   * Move an operation (one transaction): append the history entry and set the fields, only while `fence` is still
   * the operation's newest (a stale owner writes nothing). `to` may equal the current state for a field-only update.
   */
  update(op, { to, cause, patch = {}, worker, fence }) {
    return this.db
      .transaction(() => {
        const cur = this.get(op.id);
        if (!cur || (fence !== undefined && cur.fence !== fence) || isFinal(cur.state)) return false;
        const history = cur.history;
        if (to && to !== cur.state)
          history.push({ at: new Date().toISOString(), actor: worker, from: cur.state, to, cause, lease_token: fence ?? null });
        const fields = { ...patch, state: to ?? cur.state, history: JSON.stringify(history) };
        if ('result' in fields && fields.result !== null) fields.result = JSON.stringify(fields.result);
        const cols = Object.keys(fields);
        this.db.prepare(`UPDATE ops SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...cols.map((c) => fields[c]), op.id);
        return true;
      })
      .immediate();
  }

  release(id, worker) {
    this.db.prepare('UPDATE ops SET lease_until = 0 WHERE id = ? AND owner = ?').run(id, worker);
  }
}
