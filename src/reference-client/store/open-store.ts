import type { OperationStore } from './operation-store.js';
import { PgOperationStore } from './pg-store.js';
import { isPostgresUrl, schemaForState } from './pg-pool.js';
import { SqliteOperationStore } from './sqlite-store.js';

/**
 * The operation store for a state: SQLite in `${state}/client.db` when `db` is unset, PostgreSQL when it is a
 * `postgres://` URL (the CLI passes `--db` or JOBPROOF_CLIENT_DB), in the schema that belongs to this state.
 */
export function openOperationStore(state: string, db?: string, opts: { leaseMs?: number } = {}): OperationStore {
  if (db && !isPostgresUrl(db))
    throw new Error(
      `db must be a postgres:// or postgresql:// URL (or unset for SQLite), got '${String(db).replace(/\/\/[^@]*@/, '//…@')}'`,
    );
  return isPostgresUrl(db) ? new PgOperationStore(db, schemaForState(state), { leaseMs: opts.leaseMs }) : SqliteOperationStore.open(state);
}
