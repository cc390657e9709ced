import { atomically } from './atomically.js';
import type { Db } from './database.js';

/**
 * One SQLite transaction per event-loop turn (docs/decisions/014-group-commit.md).
 *
 * A write path calls `join()` before it writes: the first caller of a turn opens a transaction (BEGIN IMMEDIATE), later ones
 * share it (their own `db.transaction()` calls become savepoints, atomic as before), and it commits at the end of
 * the turn (setImmediate). Writes made with no turn open commit on their own, as they always did. `committed()`
 * resolves once everything written so far is committed: a transport waits for it before an answer leaves the
 * process, and the webhook dispatcher before it sends, so nothing a client or receiver can observe is ever lost
 * by a crash. `beforeCommit` hooks (the journal's queue) write into the same transaction.
 */
export class GroupCommit {
  private open = false;
  private scheduled = false;
  private closed = false;
  private waiting: { promise: Promise<void>; resolve: () => void } | null = null;
  private readonly hooks: Array<{ pending(): boolean; write(): void }> = [];
  // Prepared once: `exec` parsed the text again on every turn (~2 % of an in-process schedule).
  private readonly beginStmt;
  private readonly commitStmt;

  constructor(private readonly db: Db) {
    this.beginStmt = db.prepare('BEGIN IMMEDIATE');
    this.commitStmt = db.prepare('COMMIT');
  }

  /** Queued writes (the journal's) that must go out with the next commit. */
  addQueue(q: { pending(): boolean; write(): void }): void {
    this.hooks.push(q);
  }

  /** Open this turn's transaction, or join the open one. A no-op inside a caller's own transaction. */
  join(): void {
    if (this.closed || this.open || this.db.inTransaction) return;
    // IMMEDIATE: a request joins before it reads (http/app.ts), and a deferred transaction that read first could not
    // take the write lock if another connection had committed meanwhile (SQLITE_BUSY_SNAPSHOT, no busy wait).
    this.beginStmt.run();
    this.open = true;
    this.schedule();
  }

  /** Commit at the end of this turn. */
  schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.commitOrRetry();
    });
  }

  /** Whether anything written is not yet committed. */
  dirty(): boolean {
    return this.open || this.hooks.some((h) => h.pending());
  }

  /** Resolves once everything written so far is committed (at once when nothing waits). */
  committed(): Promise<void> {
    if (!this.dirty()) return Promise.resolve();
    if (!this.waiting) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }

  /** Commit now: the queues' rows, then the turn's transaction. */
  commit(): void {
    if (this.closed) return;
    if (this.hooks.some((h) => h.pending())) {
      if (this.open) for (const h of this.hooks) h.write();
      else
        atomically(this.db, () => {
          for (const h of this.hooks) h.write();
        });
    }
    if (this.open) {
      this.commitStmt.run();
      this.open = false;
    }
    const w = this.waiting;
    this.waiting = null;
    w?.resolve();
  }

  private commitOrRetry(): void {
    try {
      this.commit();
    } catch (err) {
      if (this.closed || !this.db.open) return;
      // SQLITE_BUSY past busy_timeout or a full disk: nothing is lost yet (answers wait); try again shortly.
      console.error(`[jobproof] store commit failed, retrying: ${(err as Error).message}`);
      setTimeout(() => this.commitOrRetry(), 50).unref();
    }
  }

  /** Commit and stop opening transactions (the provider is closing). */
  close(): void {
    if (this.closed) return;
    try {
      this.commit();
    } finally {
      this.closed = true;
      const w = this.waiting;
      this.waiting = null;
      w?.resolve();
    }
  }
}
