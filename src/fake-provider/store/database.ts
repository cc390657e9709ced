import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL UNIQUE,
  tenant TEXT NOT NULL,
  subject TEXT NOT NULL,
  kind TEXT NOT NULL,
  input TEXT NOT NULL,
  client_ref TEXT,
  idempotency_key TEXT,
  trace_id TEXT,
  webhook_url TEXT,
  behavior TEXT NOT NULL,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  running_at INTEGER NOT NULL,
  progress_at INTEGER,
  finish_at INTEGER,
  cancel_requested_at INTEGER,
  cancel_effective_at INTEGER,
  next_step_at INTEGER,
  result TEXT,
  error TEXT,
  finished_at INTEGER,
  results_fetched INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs(next_step_at) WHERE next_step_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS jobs_client_ref ON jobs(tenant, client_ref, seq);
CREATE INDEX IF NOT EXISTS jobs_idem ON jobs(tenant, subject, idempotency_key, seq);
CREATE INDEX IF NOT EXISTS jobs_tenant ON jobs(tenant, seq);

CREATE TABLE IF NOT EXISTS idempotency (
  tenant TEXT NOT NULL,
  subject TEXT NOT NULL,
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  headers TEXT,
  body TEXT,
  job_id TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, subject, scope, key)
);

CREATE TABLE IF NOT EXISTS journal (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  job_id TEXT,
  entry TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_job ON journal(job_id, seq);

CREATE TABLE IF NOT EXISTS webhook_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  job_id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  url TEXT NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  copies INTEGER NOT NULL DEFAULT 1,
  next_attempt_at INTEGER,
  status TEXT NOT NULL,
  fault TEXT
);
CREATE INDEX IF NOT EXISTS webhooks_due ON webhook_events(next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS webhooks_job ON webhook_events(job_id, status);

-- Dialects (dialects.md): OpenAI Files, and each batch's dialect-side data; the batch itself is a row of jobs.
CREATE TABLE IF NOT EXISTS dialect_files (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  file_id TEXT NOT NULL UNIQUE,
  tenant TEXT NOT NULL,
  purpose TEXT NOT NULL,
  filename TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  content TEXT,
  batch_id TEXT,
  role TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dialect_batches (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  batch_id TEXT NOT NULL UNIQUE,
  dialect TEXT NOT NULL,
  tenant TEXT NOT NULL,
  endpoint TEXT,
  input_file_id TEXT,
  completion_window TEXT,
  metadata TEXT,
  requests TEXT NOT NULL,
  output_file_id TEXT,
  error_file_id TEXT,
  errors TEXT,
  deleted_at INTEGER
);
CREATE INDEX IF NOT EXISTS dialect_batches_list ON dialect_batches(tenant, dialect, seq);

CREATE TABLE IF NOT EXISTS settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

/** Open (and migrate) the provider's SQLite store. WAL so readers never block the writer and a crash loses nothing committed. */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes under WAL; only an OS crash can lose the last transactions.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  // A request that was reserving a key when the process died never executed: its key is free again.
  db.prepare(`DELETE FROM idempotency WHERE state = 'in_flight'`).run();
  return db;
}

/** Prepared statements for SQL built at run time (dynamic column lists): prepared once, reused. */
export function statementCache(db: Db): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      cache.set(sql, st);
    }
    return st;
  };
}
