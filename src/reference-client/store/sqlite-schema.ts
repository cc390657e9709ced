import type { OperationRow } from '../types.js';
import type { Migration } from '../../lib/sqlite-migrations.js';

/**
 * One row per operation, columns named as the record's fields. Append-only tables are enforced by triggers, so a
 * bug (not only a reader of the docs) is stopped from rewriting history or audit. This is the schema release 0.1.0
 * created without a version number (user_version 0); `IF NOT EXISTS` lets version 1 adopt such a file as it is.
 */
const BASELINE = `
CREATE TABLE IF NOT EXISTS operations (
  operation_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  is_open INTEGER NOT NULL,
  remote_state TEXT,
  kind TEXT NOT NULL,
  input TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  submitted_at INTEGER NOT NULL,
  create_deadline_at INTEGER NOT NULL,
  result_deadline_at INTEGER NOT NULL,
  cancel TEXT,
  remote_job_id TEXT,
  webhook_url TEXT,
  conflicting_job_id TEXT,
  next_poll_at INTEGER,
  not_before INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  poll_count INTEGER NOT NULL,
  read_failures INTEGER NOT NULL DEFAULT 0,
  create_attempts INTEGER NOT NULL,
  last_create_at INTEGER,
  cancel_sends INTEGER NOT NULL,
  cancel_attempt TEXT,
  collect_attempts INTEGER NOT NULL,
  expected_result TEXT,
  result_sha256 TEXT,
  result_location TEXT,
  items_total INTEGER,
  items_failed INTEGER,
  remote_progress TEXT,
  reason TEXT,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  fencing_token INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS operations_key ON operations(idempotency_key);
CREATE INDEX IF NOT EXISTS operations_due ON operations(next_poll_at) WHERE is_open = 1;
CREATE INDEX IF NOT EXISTS operations_lease ON operations(lease_expires_at) WHERE is_open = 1;
CREATE INDEX IF NOT EXISTS operations_remote ON operations(remote_job_id) WHERE remote_job_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS history (
  operation_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  cause TEXT NOT NULL,
  evidence TEXT NOT NULL,
  remote_state TEXT,
  PRIMARY KEY (operation_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS history_no_update BEFORE UPDATE ON history BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS history_no_delete BEFORE DELETE ON history BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;

CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  kind TEXT NOT NULL,
  operation_id TEXT,
  detail TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TABLE IF NOT EXISTS audit_head (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL
);
`;

/** Ordered, append-only: a change to the schema is a new entry, never an edit of a released one. */
export const SQLITE_OPERATION_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'baseline (release 0.1.0)', sql: BASELINE },
  // The fencing token each history line was written under (client-protocol.md, lease tokens); lines written before
  // have none. PostgreSQL has had it from its first version (history.fencing_token).
  { version: 2, name: 'history.lease_token', sql: 'ALTER TABLE history ADD COLUMN lease_token INTEGER;' },
];

export const JSON_COLUMNS = new Set<keyof OperationRow>(['input', 'cancel', 'expected_result', 'remote_progress']);

export const COLUMNS: (keyof OperationRow)[] = [
  'operation_id',
  'state',
  'remote_state',
  'kind',
  'input',
  'request_fingerprint',
  'idempotency_key',
  'trace_id',
  'submitted_at',
  'create_deadline_at',
  'result_deadline_at',
  'cancel',
  'remote_job_id',
  'webhook_url',
  'conflicting_job_id',
  'next_poll_at',
  'not_before',
  'attempt',
  'poll_count',
  'read_failures',
  'create_attempts',
  'last_create_at',
  'cancel_sends',
  'cancel_attempt',
  'collect_attempts',
  'expected_result',
  'result_sha256',
  'result_location',
  'items_total',
  'items_failed',
  'remote_progress',
  'reason',
  'lease_owner',
  'lease_expires_at',
  'fencing_token',
];

export function toDb(key: keyof OperationRow, value: unknown): unknown {
  if (JSON_COLUMNS.has(key)) return value === null || value === undefined ? null : JSON.stringify(value);
  return value === undefined ? null : value;
}

export function fromDb(raw: Record<string, unknown>): OperationRow {
  const row: Record<string, unknown> = {};
  for (const key of COLUMNS) {
    const v = raw[key];
    row[key] = JSON_COLUMNS.has(key) && typeof v === 'string' ? JSON.parse(v) : (v ?? null);
  }
  return row as OperationRow;
}
