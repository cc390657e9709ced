import type { AuditInput, AuditRow, CancelIntent, OperationPatch, OperationRow, StoredHistoryEntry } from '../types.js';

/**
 * The narrow durable interface the worker needs. SQLite implements it now; a PostgreSQL backend later must give the
 * same guarantees: each method is one transaction, and every fenced write is a compare-and-set on the fencing token.
 */
export interface Lease {
  operation_id: string;
  owner: string;
  token: number;
  expires_at: number;
}

export interface FencedChange {
  patch: OperationPatch;
  history: Omit<StoredHistoryEntry, 'from'>[];
  audit: AuditInput[];
  /** Refuse the write when a cancel intent was recorded meanwhile (so no create is sent after a cancel). */
  requireNoCancel?: boolean;
}

export type InsertOutcome = 'inserted' | 'exists';
export type CommitOutcome = 'ok' | 'lease_lost' | 'cancel_recorded';

export interface OperationStore {
  /** Record a new operation with its first history entry; `exists` (and no change) when the id is taken. */
  insertOperation(row: OperationRow, first: StoredHistoryEntry, audit: AuditInput[]): InsertOutcome;
  get(operationId: string): OperationRow | undefined;
  findByRemoteJobId(jobId: string): OperationRow | undefined;
  history(operationId: string): StoredHistoryEntry[];
  /** Record a cancel intent (first one wins); returns false when the operation is unknown. Not fenced: it is a user fact. */
  recordCancelIntent(operationId: string, intent: CancelIntent, audit: AuditInput[]): boolean;

  /**
   * Lease up to `limit` open operations that are due at `now`: unleased, expired, or already ours. A lease we do not
   * hold at the token we know is taken with a new fencing token.
   */
  claimDue(owner: string, now: number, leaseMs: number, limit: number, held: ReadonlyMap<string, number>): Lease[];
  /** Extend a lease; false when its fencing token moved (someone took it) or the operation is final. */
  renew(lease: Lease, now: number, leaseMs: number): boolean;
  release(lease: Lease): void;
  /**
   * Apply a change under a lease: CAS on (operation id, owner, fencing token). History entries get their `from` from
   * the stored state inside the same transaction. Writes nothing unless the outcome is `ok`.
   */
  commit(lease: Lease, change: FencedChange): CommitOutcome;
  /** A scheduling hint anyone may give (webhooks): poll no later than `at`, never before the Retry-After hold. */
  pollSoon(operationId: string, at: number): void;

  countOpen(): number;
  /** Whether any operation is still open: the worker's exit test on every turn, so it must not count them all. */
  hasOpen(): boolean;
  /** Earliest time something may become claimable by `owner`, or null when nothing is open. */
  nextWakeAt(owner: string, now: number): number | null;

  appendAudit(entries: AuditInput[]): void;
  auditRows(): AuditRow[];
  auditHead(): { seq: number; hash: string } | null;
  close(): void;
}

/** A cancel intent arrived between reading the record and writing: the turn must be re-planned from the record. */
export class CancelRecordedError extends Error {
  constructor(readonly operationId: string) {
    super(`cancel intent recorded for ${operationId} meanwhile`);
  }
}

export class LeaseLostError extends Error {
  constructor(readonly operationId: string) {
    super(`lease on ${operationId} was taken over`);
  }
}
