import type BetterSqlite3 from 'better-sqlite3';

/** database.ts imports the migrations, so they name the connection type themselves (no import cycle). */
type Db = BetterSqlite3.Database;

/**
 * The dialects' tables (dialects.md): OpenAI Files (uploaded input files, and each batch's output and error file,
 * whose content is rendered from the batch), and each batch's dialect-side fields. The batch itself is a row of
 * `jobs` with the same id.
 */
export function up(db: Db): void {
  db.exec(`
CREATE TABLE dialect_files (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  file_id TEXT NOT NULL UNIQUE,
  tenant TEXT NOT NULL,
  purpose TEXT NOT NULL,
  filename TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  content TEXT,
  batch_id TEXT,
  role TEXT NOT NULL,
  fetched INTEGER NOT NULL DEFAULT 0,
  deleted_at INTEGER
);
CREATE TABLE dialect_batches (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  batch_id TEXT NOT NULL UNIQUE,
  dialect TEXT NOT NULL,
  tenant TEXT NOT NULL,
  endpoint TEXT,
  input_file_id TEXT,
  completion_window TEXT,
  metadata TEXT,
  requests TEXT NOT NULL,
  request_count INTEGER NOT NULL,
  invalid_lines TEXT,
  output_file_id TEXT,
  error_file_id TEXT,
  errors TEXT,
  deleted_at INTEGER
);
CREATE INDEX dialect_batches_list ON dialect_batches(tenant, dialect, seq);
`);
}
