import type Database from 'better-sqlite3';
import { migratedImage } from '../../lib/sqlite-image.js';
import { pendingMigrations, type Migration } from './migrations.js';
import { SQLITE_OPERATION_MIGRATIONS } from './sqlite-schema.js';

/**
 * Refuse a file from a newer release before anything else touches it (even `journal_mode = WAL` rewrites the
 * header): call first, right after opening. Closes the handle when refusing.
 */
export function refuseNewerSqlite(db: Database.Database, store: string, list: readonly Migration[]): void {
  try {
    pendingMigrations(store, db.pragma('user_version', { simple: true }) as number, list);
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Bring a SQLite store to the latest schema. Each step and its `user_version` are one IMMEDIATE transaction, so a
 * crash mid-migration leaves the file at the previous version, and two processes opening one old file at once apply
 * each step once (the second sees the new version after taking the write lock).
 */
export function migrateSqlite(db: Database.Database, store: string, list: readonly Migration[]): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  // Refuse before touching anything: a newer file stays exactly as it was. An up-to-date file takes no write lock
  // (a worker paused mid-transaction elsewhere must not stop another from opening the store).
  if (!pendingMigrations(store, version(), list).length) return;
  for (;;) {
    const applied = db
      .transaction(() => {
        const [next] = pendingMigrations(store, version(), list);
        if (!next) return false;
        db.exec(next.sql);
        db.pragma(`user_version = ${next.version}`);
        return true;
      })
      .immediate();
    if (!applied) return;
  }
}

/** An empty operation store at the latest schema, serialized once per thread: in-memory stores are opened per run. */
export const migratedSqliteImage = migratedImage((db) => migrateSqlite(db, ':memory:', SQLITE_OPERATION_MIGRATIONS));
