import type { JournalEntry } from '../../contract/journal.js';
import { atomically } from './atomically.js';
import type { Db } from './database.js';
import { decodeRow, encodeEntry, JOURNAL_COLUMNS, rowValues, type JournalRow } from './journal-codec.js';
import { encodeRequest, type RequestFacts } from './journal-request.js';
import { encodeTransition, type TransitionFacts } from './journal-transition.js';
import type { GroupCommit } from './group-commit.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewJournalEntry = DistributiveOmit<JournalEntry, 'seq'>;

export interface JournalOptions {
  /** Keep only the newest N entries (long soaks); null keeps all. The judge needs the whole journal: not for certify. */
  maxEntries?: number | null;
  /**
   * Keep every entry read, decoded, so each row is read and decoded once (short-lived `:memory:` providers: no other
   * connection writes their journal, and an in-process run reads it after every step). Not with `maxEntries`.
   */
  keepDecoded?: boolean;
}

/** A queue this long is written at once instead of waiting for the end of the event-loop turn. */
const BATCH_LIMIT = 512;

/**
 * The append-only ground truth, group-committed (store/group-commit.ts, docs/decisions/014-group-commit.md).
 *
 * `append` numbers an entry at once. Inside a transaction (the turn's, or a job change's own) the entry is written
 * in it, with the change it describes; outside one it is queued and written with the next group commit (end of the
 * turn), when the queue reaches BATCH_LIMIT, and before any read of the journal. Sequence numbers are strictly
 * increasing in the order of `append`; a crash or a rolled-back transaction can leave a gap, never a reordering.
 */
export class JournalRepo {
  private readonly insertStmt;
  private readonly sinceStmt;
  private readonly lastStmt;
  private readonly trimStmt;
  private readonly resetStmt;
  private readonly maxEntries: number | null;
  private lastAssigned: number;
  private queue: unknown[][] = [];
  private closed = false;
  /** keepDecoded: every entry numbered up to `decodedThrough` that is in the table, in order. */
  private readonly decoded: JournalEntry[] | null;
  private decodedThrough = 0;

  constructor(
    private readonly db: Db,
    private readonly group: GroupCommit,
    opts: JournalOptions = {},
  ) {
    this.maxEntries = opts.maxEntries ?? null;
    this.decoded = opts.keepDecoded && this.maxEntries === null ? [] : null;
    // Positional parameters: binding 23 named ones cost more than the insert itself.
    this.insertStmt = db.prepare<unknown[]>(
      `INSERT INTO journal (${JOURNAL_COLUMNS.join(', ')}) VALUES (${JOURNAL_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.sinceStmt = db.prepare<[number, number], JournalRow>(
      `SELECT ${JOURNAL_COLUMNS.join(', ')} FROM journal WHERE seq > ? ORDER BY seq LIMIT ?`,
    );
    this.lastStmt = db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM journal');
    this.trimStmt = db.prepare<[number]>('DELETE FROM journal WHERE seq <= ?');
    this.resetStmt = db.prepare('DELETE FROM journal');
    // AUTOINCREMENT's high-water mark survives a reset (DELETE FROM journal): numbers are never reused.
    const mark = db
      .prepare<[], { seq: number | null }>(
        `SELECT MAX(seq) AS seq FROM (SELECT seq FROM sqlite_sequence WHERE name = 'journal' UNION ALL SELECT MAX(seq) FROM journal)`,
      )
      .get();
    this.lastAssigned = mark?.seq ?? 0;
    group.addQueue({ pending: () => this.queue.length > 0 || this.trimDue, write: () => this.writeQueue() });
  }

  private trimDue = false;

  append(entry: NewJournalEntry): number {
    if (this.closed) throw new Error('the journal is closed');
    const seq = ++this.lastAssigned;
    this.write(rowValues(encodeEntry({ ...entry, seq } as JournalEntry)));
    return seq;
  }

  /** `append` of a request entry, from the middleware's facts (times in ms): the hot path of every request. */
  appendRequest(facts: RequestFacts): number {
    if (this.closed) throw new Error('the journal is closed');
    const seq = ++this.lastAssigned;
    this.write(encodeRequest(seq, facts));
    return seq;
  }

  /** `append` of a job's transition, its time in ms (the engine's; a create journals three). */
  appendTransition(facts: TransitionFacts): number {
    if (this.closed) throw new Error('the journal is closed');
    const seq = ++this.lastAssigned;
    this.write(encodeTransition(seq, facts));
    return seq;
  }

  private write(row: unknown[]): void {
    if (this.maxEntries !== null && !this.trimDue) {
      this.trimDue = true;
      this.group.schedule();
    }
    if (this.db.inTransaction) {
      this.insertStmt.run(row);
      return;
    }
    this.queue.push(row);
    if (this.queue.length >= BATCH_LIMIT) this.flush();
    else this.group.schedule();
  }

  /** Inside the caller's transaction: the queued rows, and the trim to maxEntries. */
  private writeQueue(): void {
    for (const r of this.queue) this.insertStmt.run(r);
    this.queue = [];
    if (this.trimDue && this.maxEntries !== null) this.trimStmt.run(this.lastAssigned - this.maxEntries);
    this.trimDue = false;
  }

  /** Resolves once every entry appended so far is committed (at once when nothing waits). */
  committed(): Promise<void> {
    return this.group.committed();
  }

  /** Write the queued entries now (readers on this connection see them; the group commit makes them durable). */
  flush(): void {
    if (this.closed || (this.queue.length === 0 && !this.trimDue)) return;
    if (this.db.inTransaction) this.writeQueue();
    else atomically(this.db, () => this.writeQueue());
  }

  /** Entries after `seq`, oldest first (pages by rowid: cheap from any point, for live readers too). */
  since(seq = 0, limit = Number.MAX_SAFE_INTEGER): JournalEntry[] {
    this.flush();
    const kept = this.decoded;
    if (!kept) return this.sinceStmt.all(seq, limit).map(decodeRow);
    // After the flush every number handed out is in the table or was rolled back for good: read only what is new.
    // (No reader runs inside a transaction that could still roll back: handlers read no journal, the harness and
    // the control API read between the turn's writes, and the turn's own transaction always commits.)
    if (this.decodedThrough < this.lastAssigned) {
      for (const row of this.sinceStmt.all(this.decodedThrough, Number.MAX_SAFE_INTEGER)) kept.push(decodeRow(row));
      this.decodedThrough = this.lastAssigned;
    }
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (kept[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return kept.slice(lo, limit >= kept.length - lo ? kept.length : lo + limit);
  }

  all(): JournalEntry[] {
    return this.since(0);
  }

  lastSeq(): number {
    this.flush();
    return this.lastStmt.get()?.seq ?? 0;
  }

  /** Forget every entry (the provider's reset); numbering carries on from AUTOINCREMENT's high-water mark. */
  reset(): void {
    // Queued entries are written first, so the high-water mark counts every number handed out.
    this.flush();
    this.resetStmt.run();
    // Read again from the table: empty now, or whole again if the reset's transaction is rolled back.
    if (this.decoded) this.decoded.length = 0;
    this.decodedThrough = 0;
  }

  /** Refuse further entries (the provider is closing: the group commit wrote the queue, the database closes next). */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
