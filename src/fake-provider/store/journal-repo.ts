import type { JournalEntry } from '../../contract/journal.js';
import type { Db } from './database.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type NewJournalEntry = DistributiveOmit<JournalEntry, 'seq'>;

/** The append-only ground truth. Entries are stored as JSON; `seq` is the SQLite rowid, so paging is an index walk. */
export class JournalRepo {
  private readonly insertStmt;
  private readonly sinceStmt;
  private readonly lastStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO journal (type, job_id, entry) VALUES (?, ?, ?)');
    this.sinceStmt = db.prepare<[number, number], { seq: number; entry: string }>('SELECT seq, entry FROM journal WHERE seq > ? ORDER BY seq LIMIT ?');
    this.lastStmt = db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM journal');
  }

  append(entry: NewJournalEntry): number {
    const jobId = 'job_id' in entry ? entry.job_id : null;
    return Number(this.insertStmt.run(entry.type, jobId, JSON.stringify(entry)).lastInsertRowid);
  }

  /** Entries after `seq`, oldest first. */
  since(seq = 0, limit = Number.MAX_SAFE_INTEGER): JournalEntry[] {
    return this.sinceStmt.all(seq, limit).map((r) => ({ ...JSON.parse(r.entry), seq: r.seq }) as JournalEntry);
  }

  all(): JournalEntry[] {
    return this.since(0);
  }

  lastSeq(): number {
    return this.lastStmt.get()?.seq ?? 0;
  }
}
