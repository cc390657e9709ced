import type { NewOperationRow } from '../new-operation-row.js';
import type { AuditInput, AuditRow, CancelIntent, OperationRow, StoredHistoryEntry } from '../types.js';
import type { CommitOutcome, FencedChange, InsertOutcome, Lease, OperationStore } from './operation-store.js';
import { MemoryOperationStore } from './memory-store.js';

interface Shared {
  store: MemoryOperationStore;
  open: number;
}

/** One in-memory store per state directory while any client of it is open. */
const byState = new Map<string, Shared>();

/**
 * The store of an in-process run that needs no crash safety: every client given the same `state` shares one
 * in-memory store (memory-store.ts: the SQLite store's rows and answers in plain JavaScript), as the worker processes
 * of a real deployment share one file. The harness "kills" an in-process worker by freezing it, never by ending the
 * process, so nothing a file would keep is ever lost here; and since each store method runs to completion
 * synchronously, a frozen worker never leaves one half done.
 * The store lives until the last client of the state closes it (the harness closes every client at the end of a run).
 */
export function openRunMemoryStore(state: string): OperationStore {
  let shared = byState.get(state);
  if (!shared) {
    shared = { store: new MemoryOperationStore(), open: 0 };
    byState.set(state, shared);
  }
  shared.open++;
  return new RunMemoryStore(state, shared);
}

/** One client's handle on the shared store: closing it closes the store only when no other handle is open. */
class RunMemoryStore implements OperationStore {
  private closed = false;
  private readonly s: MemoryOperationStore;

  constructor(
    private readonly state: string,
    private readonly shared: Shared,
  ) {
    this.s = shared.store;
  }

  insertOperation(row: NewOperationRow, actor: string, audit: AuditInput[]): Promise<InsertOutcome> {
    return this.s.insertOperation(row, actor, audit);
  }
  get(operationId: string): Promise<OperationRow | undefined> {
    return this.s.get(operationId);
  }
  findByRemoteJobId(jobId: string): Promise<OperationRow | undefined> {
    return this.s.findByRemoteJobId(jobId);
  }
  history(operationId: string): Promise<StoredHistoryEntry[]> {
    return this.s.history(operationId);
  }
  recordCancelIntent(operationId: string, intent: CancelIntent, audit: AuditInput[]): Promise<boolean> {
    return this.s.recordCancelIntent(operationId, intent, audit);
  }
  claimDue(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    held: ReadonlyMap<string, number>,
    busy?: ReadonlySet<string>,
  ): Promise<Lease[]> {
    return this.s.claimDue(owner, now, leaseMs, limit, held, busy);
  }
  renew(lease: Lease, now: number, leaseMs: number): Promise<boolean> {
    return this.s.renew(lease, now, leaseMs);
  }
  release(lease: Lease): Promise<void> {
    return this.s.release(lease);
  }
  commit(lease: Lease, change: FencedChange): Promise<CommitOutcome> {
    return this.s.commit(lease, change);
  }
  pollSoon(operationId: string, at: number): Promise<void> {
    return this.s.pollSoon(operationId, at);
  }
  countOpen(): Promise<number> {
    return this.s.countOpen();
  }
  hasOpen(): Promise<boolean> {
    return this.s.hasOpen();
  }
  nextWakeAt(owner: string, now: number, busy?: ReadonlySet<string>): Promise<number | null> {
    return this.s.nextWakeAt(owner, now, busy);
  }
  appendAudit(entries: AuditInput[]): Promise<void> {
    return this.s.appendAudit(entries);
  }
  auditRows(): Promise<AuditRow[]> {
    return this.s.auditRows();
  }
  auditHead(): Promise<{ seq: number; hash: string } | null> {
    return this.s.auditHead();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (--this.shared.open > 0) return;
    if (byState.get(this.state) === this.shared) byState.delete(this.state);
    await this.s.close();
  }
}
