import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename, resolve } from 'node:path';
import type pg from 'pg';

/** The PostgreSQL store was asked for and node-postgres is not installed: a usage error, with what to do. */
export class PgDriverMissingError extends Error {
  readonly code = 'pg_driver_missing';
  constructor() {
    super(
      'the PostgreSQL store (a postgres:// db, JOBPROOF_CLIENT_DB or --db) needs node-postgres, an optional peer dependency of jobproof: run `npm install pg` (8.x) beside jobproof, or leave the db unset for SQLite',
    );
  }
}

/**
 * Load node-postgres through `load` (Node's require), turning "pg is not installed" into PgDriverMissingError; any
 * other failure (a broken install, a module missing inside pg) is left as it is.
 */
export function requirePg(load: (id: string) => unknown): typeof pg {
  try {
    return load('pg') as typeof pg;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'MODULE_NOT_FOUND' && /Cannot find module 'pg'/.test(e.message)) throw new PgDriverMissingError();
    throw err;
  }
}

// node-postgres is an optional peer, loaded by the first pool, not with this module: every `jobproof client …` start
// reaches this file (the store is chosen at run time), and only a client configured for PostgreSQL needs the driver
// (~70 ms of start-up).
let pgModule: typeof pg | undefined;
const loadPg = (): typeof pg => (pgModule ??= requirePg(createRequire(import.meta.url)));

/** `postgres://…` or `postgresql://…`: the store lives in PostgreSQL; anything else means SQLite in the state dir. */
export function isPostgresUrl(db: string | undefined): db is string {
  return !!db && /^postgres(ql)?:\/\//i.test(db);
}

/**
 * One schema per JOBPROOF_STATE, so two certify runs (or two teams) on one database never see each other's
 * operations: a readable prefix from the directory name and a hash of its absolute path (identifiers stop at 63).
 */
export function schemaForState(state: string): string {
  const abs = resolve(state);
  const name = basename(abs)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30);
  return `jp_${name}_${createHash('sha256').update(abs).digest('hex').slice(0, 12)}`;
}

export const quoteIdent = (id: string) => `"${id.replace(/"/g, '""')}"`;

/**
 * A pool whose connections all work in `schema`. BIGINT (times in ms, fencing tokens) comes back as a number, not
 * node-postgres' default string: every value the store keeps is far below 2^53. Connection errors on idle clients
 * (the server restarting) are expected and must not crash the process; the next query reconnects.
 */
export function openPool(url: string, schema: string, max = 4, idleTxMs = 2000): pg.Pool {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A worker SIGSTOPped mid-transaction would hold its row locks (and the audit head, which every audited write
    // needs) for as long as it is paused, so no one could take its operations over: the server ends a session idle
    // in a transaction after `idleTxMs` (the store passes half a lease, at most 2 s), and a statement waits at most 5 s for a lock.
    // Our transactions never wait on anything but the database, so a healthy worker only trips these when stalled;
    // both surface as transient errors and the step is tried again.
    options: `-c search_path=${quoteIdent(schema)} -c idle_in_transaction_session_timeout=${Math.max(50, Math.round(idleTxMs))} -c lock_timeout=5000`,
    connectionTimeoutMillis: 5_000,
    // A paused or partitioned peer must not hold a row lock forever: statements give up, the step is retried.
    statement_timeout: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => undefined);
  return pool;
}

/** Run `fn` in one transaction on one connection; rolled back on any error. */
export async function inTx<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken = false;
  // The server may end a checked-out session on its own (a paused process idled in its transaction, a restart):
  // node-postgres then emits 'error' on the client, which would crash the process if nobody listened.
  const onError = () => {
    broken = true;
  };
  c.on('error', onError);
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    // A connection that could not even roll back is dead: drop it instead of returning it to the pool.
    c.off('error', onError);
    c.release(broken ? true : undefined);
  }
}
