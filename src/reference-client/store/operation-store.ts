import type { NewOperationRow } from '../new-operation-row.js';
import type { HistoryLine } from '../state-machine.js';
import type { AuditInput, AuditRow, CancelIntent, OperationPatch, OperationRow, StoredHistoryEntry } from '../types.js';

/**
 * The narrow durable interface the worker needs, implemented by SQLite (one machine) and PostgreSQL (a fleet). Both
 * give the same guarantees: each method is one transaction, and every fenced write is a compare-and-set on the
 * fencing token. Every method returns a Promise: a network database cannot answer synchronously.
 */
export interface Lease {
  operation_id: string;
  owner: string;
  token: number;
  expires_at: number;
}

export interface FencedChange {
  /** Anything but the state: that moves only by `history`. */
  patch: OperationPatch;
  /** The moves, in order; the record's new state is where they end (none: it stays). */
  history: HistoryLine[];
  audit: AuditInput[];
  /** Refuse the write when a cancel intent was recorded meanwhile (so no create is sent after a cancel). */
  requireNoCancel?: boolean;
}

export type InsertOutcome = 'inserted' | 'exists';
export type CommitOutcome = 'ok' | 'lease_lost' | 'cancel_recorded';

export interface OperationStore {
  /**
   * Record a new operation in the state machine's first state, with its submit line by `actor` (state-machine.ts
   * `submitLine`); `exists` (and no change) when the id is taken.
   */
  insertOperation(row: NewOperationRow, actor: string, audit: AuditInput[]): Promise<InsertOutcome>;
  get(operationId: string): Promise<OperationRow | undefined>;
  findByRemoteJobId(jobId: string): Promise<OperationRow | undefined>;
  history(operationId: string): Promise<StoredHistoryEntry[]>;
  /** Record a cancel intent (first one wins); returns false when the operation is unknown. Not fenced: it is a user fact. */
  recordCancelIntent(operationId: string, intent: CancelIntent, audit: AuditInput[]): Promise<boolean>;

  /**
   * Lease up to `limit` open operations that are due at `now`: unleased, expired, or already ours. A lease we do not
   * hold at the token we know is taken with a new fencing token. Operations in `busy` (the caller is stepping them)
   * are left alone: claiming one would push its next step a lease ahead for a lease the caller must throw away.
   */
  claimDue(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    held: ReadonlyMap<string, number>,
    busy?: ReadonlySet<string>,
  ): Promise<Lease[]>;
  /** Extend a lease; false when its fencing token moved (someone took it) or the operation is final. */
  renew(lease: Lease, now: number, leaseMs: number): Promise<boolean>;
  release(lease: Lease): Promise<void>;
  /**
   * Apply a change under a lease: CAS on (operation id, owner, fencing token). History lines get their `from` from
   * the stored state inside the same transaction, and each must be a move the transition table allows on its
   * evidence (state-machine.ts `walk`; else RefusedTransitionError). Writes nothing unless the outcome is `ok`.
   */
  commit(lease: Lease, change: FencedChange): Promise<CommitOutcome>;
  /** A scheduling hint anyone may give (webhooks): poll no later than `at`, never before the Retry-After hold. */
  pollSoon(operationId: string, at: number): Promise<void>;

  countOpen(): Promise<number>;
  /** Whether any operation is still open: the worker's exit test on every turn, so it must not count them all. */
  hasOpen(): Promise<boolean>;
  /** Earliest time something may become claimable by `owner`, or null when nothing is open. */
  nextWakeAt(owner: string, now: number, busy?: ReadonlySet<string>): Promise<number | null>;

  appendAudit(entries: AuditInput[]): Promise<void>;
  auditRows(): Promise<AuditRow[]>;
  auditHead(): Promise<{ seq: number; hash: string } | null>;
  close(): Promise<void>;
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
