import type { JournalEntry } from '../../contract/journal.js';
import type { Db } from './database.js';
import { decodeRow, encodeEntry, JOURNAL_COLUMNS, type JournalRow } from './journal-codec.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewJournalEntry = DistributiveOmit<JournalEntry, 'seq'>;

export interface JournalOptions {
  /** Keep only the newest N entries (long soaks); null keeps all. The judge needs the whole journal: not for certify. */
  maxEntries?: number | null;
}

/** A batch this large is written at once instead of waiting for the end of the event-loop turn. */
const BATCH_LIMIT = 512;

/**
 * The append-only ground truth, group-committed (docs/decisions/NNN-perf-group-commit.md).
 *
 * `append` numbers an entry at once and, outside a transaction, queues it; the queue is written in one transaction
 * at the end of the event-loop turn (setImmediate), when it reaches BATCH_LIMIT, before any read of the journal and
 * on close. An entry appended inside a transaction (a job created, moved or cancelled) is written in that
 * transaction, with the change it describes. Answers that depend on queued entries wait for `committed()` before
 * they leave the process (transports/node-server.ts), so no client sees an answer whose entry a crash could lose.
 * Sequence numbers are strictly increasing in the order of `append`; a crash or a rolled-back transaction can leave
 * a gap, never a reordering.
 */
export class JournalRepo {
  private readonly insertStmt;
  private readonly sinceStmt;
  private readonly lastStmt;
  private readonly trimStmt;
  private readonly maxEntries: number | null;
  private lastAssigned: number;
  private pending: JournalRow[] = [];
  private scheduled = false;
  private batch: { promise: Promise<void>; resolve: () => void } | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    opts: JournalOptions = {},
  ) {
    this.maxEntries = opts.maxEntries ?? null;
    this.insertStmt = db.prepare<JournalRow>(`INSERT INTO journal (${JOURNAL_COLUMNS.join(', ')}) VALUES (${JOURNAL_COLUMNS.map((c) => `@${c}`).join(', ')})`);
    this.sinceStmt = db.prepare<[number, number], JournalRow>(`SELECT ${JOURNAL_COLUMNS.join(', ')} FROM journal WHERE seq > ? ORDER BY seq LIMIT ?`);
    this.lastStmt = db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM journal');
    this.trimStmt = db.prepare<[number]>('DELETE FROM journal WHERE seq <= ?');
    // AUTOINCREMENT's high-water mark survives a reset (DELETE FROM journal): numbers are never reused.
    const mark = db.prepare<[], { seq: number | null }>(`SELECT MAX(seq) AS seq FROM (SELECT seq FROM sqlite_sequence WHERE name = 'journal' UNION ALL SELECT MAX(seq) FROM journal)`).get();
    this.lastAssigned = mark?.seq ?? 0;
  }

  append(entry: NewJournalEntry): number {
    if (this.closed) throw new Error('the journal is closed');
    const seq = ++this.lastAssigned;
    const row = encodeEntry({ ...entry, seq } as JournalEntry);
    if (this.db.inTransaction) {
      this.insertStmt.run(row);
      return seq;
    }
    this.pending.push(row);
    if (this.pending.length >= BATCH_LIMIT) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flushOrRetry();
      });
    }
    return seq;
  }

  /** Resolves once every entry appended so far is committed (at once when nothing is queued). */
  committed(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    if (!this.batch) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.batch = { promise, resolve };
    }
    return this.batch.promise;
  }

  /** Write the queued entries now, in one transaction (and trim to maxEntries). */
  flush(): void {
    if (this.pending.length > 0 && !this.closed) {
      const rows = this.pending;
      this.db.transaction(() => {
        for (const r of rows) this.insertStmt.run(r);
        if (this.maxEntries !== null) this.trimStmt.run(this.lastAssigned - this.maxEntries);
      })();
      // Only after the commit: a failed write keeps the queue for the next try.
      this.pending = [];
    }
    if (this.pending.length === 0 && this.batch) {
      const b = this.batch;
      this.batch = null;
      b.resolve();
    }
  }

  private flushOrRetry(): void {
    try {
      this.flush();
    } catch (err) {
      if (this.closed || !this.db.open) return;
      // SQLITE_BUSY past busy_timeout or a full disk: keep the entries (answers wait) and try again shortly.
      console.error(`[jobproof] journal write failed, retrying: ${(err as Error).message}`);
      if (!this.scheduled) {
        this.scheduled = true;
        setTimeout(() => {
          this.scheduled = false;
          this.flushOrRetry();
        }, 50).unref();
      }
    }
  }

  /** Entries after `seq`, oldest first (pages by rowid: cheap from any point, for live readers too). */
  since(seq = 0, limit = Number.MAX_SAFE_INTEGER): JournalEntry[] {
    this.flush();
    return this.sinceStmt.all(seq, limit).map(decodeRow);
  }

  all(): JournalEntry[] {
    return this.since(0);
  }

  lastSeq(): number {
    this.flush();
    return this.lastStmt.get()?.seq ?? 0;
  }

  /** Flush and refuse further entries (the provider is closing; its database closes next). */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      this.pending = [];
      const b = this.batch;
      this.batch = null;
      b?.resolve();
    }
  }
}
