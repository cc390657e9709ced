import type { OperationStore } from './operation-store.js';
import { PgOperationStore } from './pg-store.js';
import { isPostgresUrl, schemaForState } from './pg-pool.js';
import { SqliteOperationStore } from './sqlite-store.js';

/**
 * The operation store for a state: SQLite in `${state}/client.db` by default, PostgreSQL when `db` (from `--db` or
 * JOBPROOF_CLIENT_DB) is a `postgres://` URL, in the schema that belongs to this state.
 */
export function openOperationStore(
  state: string,
  db: string | undefined = process.env.JOBPROOF_CLIENT_DB,
  opts: { leaseMs?: number } = {},
): OperationStore {
  if (db && !isPostgresUrl(db))
    throw new Error(
      `JOBPROOF_CLIENT_DB must be a postgres:// or postgresql:// URL (or unset for SQLite), got '${String(db).replace(/\/\/[^@]*@/, '//…@')}'`,
    );
  return isPostgresUrl(db) ? new PgOperationStore(db, schemaForState(state), { leaseMs: opts.leaseMs }) : SqliteOperationStore.open(state);
}
