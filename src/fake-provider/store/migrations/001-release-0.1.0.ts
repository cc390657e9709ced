import type BetterSqlite3 from 'better-sqlite3';
import { TASKS_SCHEMA } from '../../tasks/schema.js';

/** database.ts imports the migrations, so they name the connection type themselves (no import cycle). */
type Db = BetterSqlite3.Database;

/**
 * Migration 1: the schema of release 0.1.0 (commit 9f3e067), which recorded no version. Every statement is
 * `IF NOT EXISTS`, so the same step creates a new store and adopts a 0.1.0 file (user_version 0, tables present).
 */
export const SCHEMA_V1 = `
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

CREATE TABLE IF NOT EXISTS settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;

export function up(db: Db): void {
  db.exec(SCHEMA_V1);
  db.exec(TASKS_SCHEMA);
}
