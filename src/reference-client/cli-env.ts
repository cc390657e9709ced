import { EXIT } from '../contract/client-states.js';
import { isPostgresUrl, PgDriverMissingError } from './store/pg-pool.js';

/**
 * The process face's configuration (client-protocol.md): the JOBPROOF_* environment and `client --db`, read here and
 * passed to the library as options. The library itself reads no environment variable.
 */
export class Refusal extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.refused,
  ) {
    super(message);
  }
}

/** A variable, with empty read as unset; a required one that is unset is refused. */
export function env(name: string, required = false): string | undefined {
  const v = process.env[name];
  if (required && (v === undefined || v === '')) throw new Refusal(`${name} must be set`);
  return v === '' ? undefined : v;
}

let dbFlag: string | undefined;

/** `client --db <url>`: it wins over JOBPROOF_CLIENT_DB for the verb that follows. */
export function useDbFlag(db: string | undefined): void {
  dbFlag = db || undefined;
}

/** Where operations and tasks are kept: a postgres:// URL, or undefined for SQLite files in JOBPROOF_STATE. */
export function clientDb(): string | undefined {
  const db = dbFlag ?? env('JOBPROOF_CLIENT_DB');
  if (db && !isPostgresUrl(db))
    throw new Refusal('JOBPROOF_CLIENT_DB (--db) must be a postgres:// or postgresql:// URL; leave it unset for SQLite in JOBPROOF_STATE');
  return db;
}

/** A usage error: told to the user as it is, exit 2 (a refusal), never as an unexpected failure with a stack. */
export function isUsageError(err: unknown): boolean {
  return err instanceof Refusal || err instanceof PgDriverMissingError;
}
