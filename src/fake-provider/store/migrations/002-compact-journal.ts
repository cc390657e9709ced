import type BetterSqlite3 from 'better-sqlite3';
import type { JournalEntry } from '../../../contract/journal.js';
import { encodeEntry, JOURNAL_COLUMNS } from '../journal-codec.js';

/** database.ts imports the migrations, so they name the connection type themselves (no import cycle). */
type Db = BetterSqlite3.Database;

/** The journal table of migration 2: one typed column per hot field (see journal-codec.ts), no secondary index. */
export const JOURNAL_TABLE_V2 = `
CREATE TABLE journal (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  at INTEGER NOT NULL,
  received_ms INTEGER,
  request_id TEXT,
  method TEXT,
  path TEXT,
  route TEXT,
  tenant TEXT,
  subject TEXT,
  idempotency_key TEXT,
  trace_id TEXT,
  worker_id TEXT,
  fingerprint TEXT,
  effect TEXT,
  job_id TEXT,
  status INTEGER,
  code TEXT,
  delivery TEXT,
  job_state TEXT,
  retry_after REAL,
  client_ref TEXT,
  extra TEXT
);
`;

/**
 * Migration 2: the journal stored compactly (~640 → ~150 bytes per status read). The JSON rows of 0.1.0 are
 * rewritten in place, sequence numbers kept; the `journal_job` index goes (no query used it).
 */
export function up(db: Db): void {
  db.exec('DROP INDEX IF EXISTS journal_job; ALTER TABLE journal RENAME TO journal_v1;');
  db.exec(JOURNAL_TABLE_V2);
  const insert = db.prepare(
    `INSERT INTO journal (${JOURNAL_COLUMNS.join(', ')}) VALUES (${JOURNAL_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const page = db.prepare<[number], { seq: number; entry: string }>(
    'SELECT seq, entry FROM journal_v1 WHERE seq > ? ORDER BY seq LIMIT 10000',
  );
  // In pages: one connection cannot insert while it iterates, and a large journal should not be read whole.
  for (let rows = page.all(0); rows.length > 0; rows = page.all(rows[rows.length - 1]!.seq)) {
    for (const r of rows) insert.run(encodeEntry({ ...(JSON.parse(r.entry) as Omit<JournalEntry, 'seq'>), seq: r.seq } as JournalEntry));
  }
  db.exec('DROP TABLE journal_v1;');
}
