import type Database from 'better-sqlite3';

/**
 * One migrations concept for every store of jobproof (the provider's, the reference client's operations and tasks)
 * and both databases: an ordered list of numbered steps, each applied once in its own transaction together with the
 * new version number. SQLite keeps the number in `PRAGMA user_version`, PostgreSQL in a version row of the store's
 * schema. A store written by a newer release is refused untouched (it may hold meanings this code would misread); an
 * older one is brought forward step by step, so a crash mid-way leaves it at the last whole step.
 *
 * A step is SQL, or (SQLite only) a function of the connection for what SQL alone cannot say (copying rows into a
 * new layout). Never edit, renumber or reorder a released step: files in the field were written by it.
 */
export type Migration = SqlMigration | CodeMigration;

interface Step {
  /** 1, 2, 3…: contiguous, never renumbered, never edited once released. */
  version: number;
  name: string;
}
export interface SqlMigration extends Step {
  sql: string;
}
export interface CodeMigration extends Step {
  up(db: Database.Database): void;
}

/** A store this release cannot read safely: written by a newer jobproof. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly store: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `${store} has schema version ${found}, but this jobproof release knows versions up to ${known}: ` +
        'it was written by a newer release. Upgrade jobproof (or use another store); the store was not touched.',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The steps to apply to a store at `current`; throws when the store is newer than the code. Pure. */
export function pendingMigrations<M extends Migration>(store: string, current: number, list: readonly M[]): M[] {
  list.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${store}: migration ${m.name} is numbered ${m.version}, expected ${i + 1}`);
  });
  const latest = list.length;
  if (current > latest) throw new SchemaTooNewError(store, current, latest);
  return list.slice(current);
}

/** A SQLite store's schema version (`PRAGMA user_version`; 0 for a new or pre-versioning file). */
export function sqliteSchemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Refuse a file from a newer release before anything else touches it (even `journal_mode = WAL` rewrites the
 * header): call first, right after opening. Closes the handle when refusing.
 */
export function refuseNewerSqlite(db: Database.Database, store: string, list: readonly Migration[]): void {
  try {
    pendingMigrations(store, sqliteSchemaVersion(db), list);
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Bring a SQLite store to the latest schema; returns the versions applied. Each step and its `user_version` are one
 * IMMEDIATE transaction, so a crash mid-migration leaves the file at the previous version, and two processes opening
 * one old file at once apply each step once (the second sees the new version after taking the write lock).
 */
export function migrateSqlite(db: Database.Database, store: string, list: readonly Migration[]): number[] {
  const applied: number[] = [];
  // Refuse before touching anything: a newer file stays exactly as it was. An up-to-date file takes no write lock
  // (a process paused mid-transaction elsewhere must not stop another from opening the store).
  if (!pendingMigrations(store, sqliteSchemaVersion(db), list).length) return applied;
  for (;;) {
    const next = db
      .transaction(() => {
        const [step] = pendingMigrations(store, sqliteSchemaVersion(db), list);
        if (!step) return null;
        if ('sql' in step) db.exec(step.sql);
        else step.up(db);
        db.pragma(`user_version = ${step.version}`);
        return step.version;
      })
      .immediate();
    if (next === null) return applied;
    applied.push(next);
  }
}
