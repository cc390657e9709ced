import { isoTime } from '../../lib/clock.js';
import { chain, GENESIS_HASH } from '../audit.js';
import type { NewOperationRow } from '../new-operation-row.js';
import { submitLine, walk, type HistoryLine } from '../state-machine.js';
import type { AuditInput, AuditRow, CancelIntent, OperationRow, StoredHistoryEntry } from '../types.js';
import type { CommitOutcome, FencedChange, InsertOutcome, Lease, OperationStore } from './operation-store.js';
import { planCommit } from './patch.js';
import { COLUMNS, fromDb, toDb } from './sqlite-schema.js';

/** A row as SQLite holds it (sqlite-schema.ts's `toDb` form, plus `is_open`): reads go through `fromDb`, as there. */
type Raw = Record<string, unknown> & { operation_id: string; is_open: number };
type HistoryRaw = Omit<StoredHistoryEntry, 'evidence'> & { evidence: string };

/**
 * `SqliteOperationStore(':memory:')` in plain JavaScript, for in-process runs (run-memory.ts): the same rows in the
 * same stored form, the same answers in the same order — each method runs to completion on the one thread, as each
 * SQLite method is one transaction, and checks everything before it changes anything, as a rolled-back transaction
 * leaves nothing. The order of due operations is SQLite's: by `next_poll_at`, ties in insertion order (rowid).
 * It survives nothing, like the `:memory:` database it stands for.
 */
export class MemoryOperationStore implements OperationStore {
  private readonly rows = new Map<string, Raw>();
  private readonly byKey = new Map<string, string>();
  private readonly histories = new Map<string, HistoryRaw[]>();
  private readonly audit: AuditRow[] = [];
  private head: { seq: number; hash: string } | null = null;

  async insertOperation(row: NewOperationRow, actor: string, audit: AuditInput[]): Promise<InsertOutcome> {
    if (this.rows.has(row.operation_id)) return 'exists';
    const first = submitLine(isoTime(row.submitted_at), actor);
    const values: Record<string, unknown> = { is_open: 1 };
    for (const c of COLUMNS) values[c] = toDb(c, c === 'state' ? first.to : row[c as keyof NewOperationRow]);
    const raw = values as Raw;
    const key = raw.idempotency_key as string;
    if (this.byKey.has(key)) throw new Error('UNIQUE constraint failed: operations.idempotency_key');
    const history = this.historyRows([first], null);
    this.rows.set(row.operation_id, raw);
    this.byKey.set(key, row.operation_id);
    this.histories.set(row.operation_id, history);
    this.appendAuditRows(audit);
    return 'inserted';
  }

  async get(operationId: string): Promise<OperationRow | undefined> {
    const raw = this.rows.get(operationId);
    return raw ? fromDb(raw) : undefined;
  }

  async findByRemoteJobId(jobId: string): Promise<OperationRow | undefined> {
    for (const raw of this.rows.values()) if (raw.remote_job_id === jobId) return fromDb(raw);
    return undefined;
  }

  async history(operationId: string): Promise<StoredHistoryEntry[]> {
    return (this.histories.get(operationId) ?? []).map((r) => ({ ...r, evidence: JSON.parse(r.evidence) }));
  }

  async recordCancelIntent(operationId: string, intent: CancelIntent, audit: AuditInput[]): Promise<boolean> {
    const raw = this.rows.get(operationId);
    if (!raw) return false;
    // The first intent wins: a second cancel must not move the deadline or make a second owner send again.
    if (raw.cancel === null && raw.is_open === 1) {
      raw.cancel = JSON.stringify(intent);
      raw.next_poll_at = Math.max(intent.requested_at, raw.not_before as number);
    }
    this.appendAuditRows(audit);
    return true;
  }

  async claimDue(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    held: ReadonlyMap<string, number>,
    busy: ReadonlySet<string> = new Set(),
  ): Promise<Lease[]> {
    const due: Raw[] = [];
    for (const r of this.rows.values()) {
      const at = r.next_poll_at as number | null;
      if (r.is_open !== 1 || at === null || at > now || busy.has(r.operation_id)) continue;
      const exp = r.lease_expires_at as number | null;
      if (r.lease_owner === null || (exp !== null && exp <= now) || r.lease_owner === owner) due.push(r);
    }
    // Array.prototype.sort is stable: equal times keep insertion order, as SQLite's index walk keeps rowid order.
    due.sort((a, b) => (a.next_poll_at as number) - (b.next_poll_at as number));
    const expires = now + leaseMs;
    const leases: Lease[] = [];
    for (const d of due.slice(0, limit)) {
      const id = d.operation_id;
      const was = d.lease_owner as string | null;
      const tokenNow = d.fencing_token as number;
      const mine = was === owner && held.get(id) === tokenNow;
      const token = mine ? tokenNow : tokenNow + 1;
      // Pushing next_poll_at one lease ahead takes the operation out of the due set while we step it; if we die,
      // a successor finds it due exactly when our lease runs out.
      Object.assign(d, { lease_owner: owner, lease_expires_at: expires, fencing_token: token, next_poll_at: expires });
      leases.push({ operation_id: id, owner, token, expires_at: expires });
      if (!mine)
        this.appendAuditRows([
          { at: now, actor: owner, kind: 'lease', operation_id: id, detail: { taken_from: was, fencing_token: token } },
        ]);
    }
    return leases;
  }

  async renew(lease: Lease, now: number, leaseMs: number): Promise<boolean> {
    const r = this.rows.get(lease.operation_id);
    if (!r || r.lease_owner !== lease.owner || r.fencing_token !== lease.token || r.is_open !== 1) return false;
    r.lease_expires_at = now + leaseMs;
    lease.expires_at = now + leaseMs;
    return true;
  }

  async release(lease: Lease): Promise<void> {
    const r = this.rows.get(lease.operation_id);
    if (!r || r.lease_owner !== lease.owner || r.fencing_token !== lease.token) return;
    r.lease_owner = null;
    r.lease_expires_at = null;
  }

  async commit(lease: Lease, change: FencedChange): Promise<CommitOutcome> {
    const cur = this.rows.get(lease.operation_id);
    if (!cur || cur.lease_owner !== lease.owner || cur.fencing_token !== lease.token || cur.is_open !== 1) return 'lease_lost';
    if (change.requireNoCancel && cur.cancel !== null) return 'cancel_recorded';
    const state = cur.state as OperationRow['state'];
    const plan = planCommit(state, change);
    const added = this.historyRows(change.history, state);
    const next: Record<string, unknown> = {};
    for (const [k, v] of plan.sets) next[k] = toDb(k, v);
    if (plan.final) next.is_open = 0;
    if ('idempotency_key' in next && next.idempotency_key !== cur.idempotency_key) {
      const key = next.idempotency_key as string;
      if (this.byKey.has(key)) throw new Error('UNIQUE constraint failed: operations.idempotency_key');
      this.byKey.delete(cur.idempotency_key as string);
      this.byKey.set(key, lease.operation_id);
    }
    Object.assign(cur, next);
    this.histories.get(lease.operation_id)!.push(...added);
    this.appendAuditRows(change.audit);
    return 'ok';
  }

  async pollSoon(operationId: string, at: number): Promise<void> {
    const r = this.rows.get(operationId);
    if (r?.is_open !== 1) return;
    const cur = r.next_poll_at as number | null;
    if (cur !== null && cur <= at) return;
    // Only ever earlier: a webhook must not push back a step already planned.
    const t = Math.max(at, r.not_before as number);
    r.next_poll_at = cur === null ? t : Math.min(cur, t);
  }

  async hasOpen(): Promise<boolean> {
    for (const r of this.rows.values()) if (r.is_open === 1) return true;
    return false;
  }

  async countOpen(): Promise<number> {
    let n = 0;
    for (const r of this.rows.values()) if (r.is_open === 1) n++;
    return n;
  }

  async nextWakeAt(owner: string, now: number, busy: ReadonlySet<string> = new Set()): Promise<number | null> {
    let t: number | null = null;
    const min = (x: number | null) => {
      if (x !== null && (t === null || x < t)) t = x;
    };
    for (const r of this.rows.values()) {
      if (r.is_open !== 1) continue;
      const exp = r.lease_expires_at as number | null;
      const lo = r.lease_owner as string | null;
      if ((lo === null || lo === owner || (exp !== null && exp <= now)) && !busy.has(r.operation_id)) min(r.next_poll_at as number | null);
      if (lo !== null && lo !== owner && exp !== null && exp > now) min(exp);
    }
    return t;
  }

  async appendAudit(entries: AuditInput[]): Promise<void> {
    this.appendAuditRows(entries);
  }

  async auditRows(): Promise<AuditRow[]> {
    return this.audit.map((r) => ({ ...r }));
  }

  async auditHead(): Promise<{ seq: number; hash: string } | null> {
    return this.head ? { ...this.head } : null;
  }

  async close(): Promise<void> {}

  /** The rows `entries` append, checked (every transition allowed) before anything is stored. */
  private historyRows(lines: HistoryLine[], from: StoredHistoryEntry['from']): HistoryRaw[] {
    // Whichever method writes lines, they pass the transition table here (as in sqlite-store.ts).
    walk(from, lines);
    let prev = from;
    return lines.map((e) => {
      const row: HistoryRaw = {
        at: e.at,
        actor: e.actor,
        from: prev,
        to: e.to,
        cause: e.cause,
        evidence: JSON.stringify(e.evidence),
        remote_state: e.remote_state ?? null,
        lease_token: e.lease_token ?? null,
      };
      prev = e.to;
      return row;
    });
  }

  private appendAuditRows(entries: AuditInput[]): void {
    if (!entries.length) return;
    const rows = chain(this.head ?? { seq: 0, hash: GENESIS_HASH }, entries);
    this.audit.push(...rows.map((r) => ({ ...r })));
    const last = rows[rows.length - 1]!;
    this.head = { seq: last.seq, hash: last.hash };
  }
}
