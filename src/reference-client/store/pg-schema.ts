import type { SqlMigration } from '../../lib/sqlite-migrations.js';

/**
 * The operation store on PostgreSQL, in the schema of one JOBPROOF_STATE (search_path is set per connection). The
 * rules a bug must not be able to break are the database's, not only the code's:
 * - history and audit are append-only: triggers refuse UPDATE, DELETE and TRUNCATE;
 * - the fence: a change to anything a worker owns (state, remote facts, counters…) is refused unless the transaction
 *   declared the lease it holds (`SET LOCAL jobproof.fence = 'owner:token'`) and that lease is the row's current one;
 *   a history line is refused on the same terms; a fencing token never goes down.
 * Scheduling columns (next_poll_at, lease_*) and the cancel intent are not fenced: they are hints and user facts.
 */
const BASELINE = `
CREATE TABLE operations (
  operation_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  is_open INTEGER NOT NULL,
  remote_state TEXT,
  kind TEXT NOT NULL,
  input TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  trace_id TEXT NOT NULL,
  submitted_at BIGINT NOT NULL,
  create_deadline_at BIGINT NOT NULL,
  result_deadline_at BIGINT NOT NULL,
  cancel TEXT,
  remote_job_id TEXT,
  webhook_url TEXT,
  conflicting_job_id TEXT,
  next_poll_at BIGINT,
  not_before BIGINT NOT NULL,
  attempt INTEGER NOT NULL,
  poll_count INTEGER NOT NULL,
  read_failures INTEGER NOT NULL DEFAULT 0,
  create_attempts INTEGER NOT NULL,
  last_create_at BIGINT,
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
  lease_expires_at BIGINT,
  fencing_token BIGINT NOT NULL
);
CREATE INDEX operations_due ON operations(next_poll_at) WHERE is_open = 1;
CREATE INDEX operations_lease ON operations(lease_expires_at) WHERE is_open = 1;
CREATE INDEX operations_remote ON operations(remote_job_id) WHERE remote_job_id IS NOT NULL;

CREATE TABLE history (
  operation_id TEXT NOT NULL REFERENCES operations(operation_id),
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  cause TEXT NOT NULL,
  evidence TEXT NOT NULL,
  remote_state TEXT,
  fencing_token BIGINT NOT NULL,
  PRIMARY KEY (operation_id, seq)
);

CREATE TABLE audit (
  seq BIGINT PRIMARY KEY,
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  kind TEXT NOT NULL,
  operation_id TEXT,
  detail TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
-- One row, created here: every audited write locks it, which serialises the chain across the whole fleet.
CREATE TABLE audit_head (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL
);
INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, 'sha256:${'0'.repeat(64)}');

CREATE FUNCTION refuse_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'JP001';
END $$;
CREATE TRIGGER history_append_only BEFORE UPDATE OR DELETE ON history FOR EACH ROW EXECUTE FUNCTION refuse_append_only();
CREATE TRIGGER history_no_truncate BEFORE TRUNCATE ON history FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only();
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit FOR EACH ROW EXECUTE FUNCTION refuse_append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only();

-- The lease this transaction declared, or NULL.
CREATE FUNCTION declared_fence() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT NULLIF(current_setting('jobproof.fence', true), '')
$$;

CREATE FUNCTION operations_fence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.fencing_token < OLD.fencing_token THEN
    RAISE EXCEPTION 'fencing token of % may not go down (% -> %)', OLD.operation_id, OLD.fencing_token, NEW.fencing_token
      USING ERRCODE = 'JP002';
  END IF;
  IF (to_jsonb(NEW) - ARRAY['cancel', 'next_poll_at', 'lease_owner', 'lease_expires_at', 'fencing_token'])
     IS DISTINCT FROM (to_jsonb(OLD) - ARRAY['cancel', 'next_poll_at', 'lease_owner', 'lease_expires_at', 'fencing_token']) THEN
    IF OLD.is_open = 0 THEN
      RAISE EXCEPTION 'operation % is final', OLD.operation_id USING ERRCODE = 'JP003';
    END IF;
    IF declared_fence() IS DISTINCT FROM (OLD.lease_owner || ':' || OLD.fencing_token) THEN
      RAISE EXCEPTION 'stale fencing token for %: declared %, current %:%', OLD.operation_id, declared_fence(),
        OLD.lease_owner, OLD.fencing_token USING ERRCODE = 'JP004';
    END IF;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER operations_fence BEFORE UPDATE ON operations FOR EACH ROW EXECUTE FUNCTION operations_fence();
CREATE TRIGGER operations_no_delete BEFORE DELETE ON operations FOR EACH ROW EXECUTE FUNCTION refuse_append_only();

CREATE FUNCTION history_fence() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE cur record;
BEGIN
  IF NEW.seq = 1 THEN RETURN NEW; END IF;  -- the submit line, written with the record itself
  SELECT lease_owner, fencing_token INTO cur FROM operations WHERE operation_id = NEW.operation_id;
  IF declared_fence() IS DISTINCT FROM (cur.lease_owner || ':' || cur.fencing_token) OR NEW.fencing_token <> cur.fencing_token THEN
    RAISE EXCEPTION 'stale fencing token for % history: declared %, current %:%', NEW.operation_id, declared_fence(),
      cur.lease_owner, cur.fencing_token USING ERRCODE = 'JP004';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER history_fence BEFORE INSERT ON history FOR EACH ROW EXECUTE FUNCTION history_fence();
`;

/** Ordered, append-only, same numbering rule as SQLite's (src/lib/sqlite-migrations.ts). */
export const PG_OPERATION_MIGRATIONS: readonly SqlMigration[] = [
  { version: 1, name: 'baseline: operations, history, audit, fence', sql: BASELINE },
];
