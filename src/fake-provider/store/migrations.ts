import type BetterSqlite3 from 'better-sqlite3';
import * as m001 from './migrations/001-release-0.1.0.js';
import * as m002 from './migrations/002-compact-journal.js';
import * as m003 from './migrations/003-dialects.js';
import * as m004 from './migrations/004-file-expiry.js';

/** database.ts imports this file, so it names the connection type itself (no import cycle). */
type Db = BetterSqlite3.Database;

/**
 * The provider store's schema history. `PRAGMA user_version` holds the number of the last migration applied; a file
 * opened here is brought forward one migration at a time, each in its own transaction together with its new version
 * number, so a crash mid-way leaves the file at the last whole step.
 *
 * To change the schema: add a file `migrations/NNN-what.ts` exporting `up(db)`, append it below with the next
 * number, never edit or reorder a published step (files in the field were written by it). Test: a file written by
 * the previous release (test/fixtures/) must open and migrate (test/fake-provider/store/migrations.test.ts).
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Db): void;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'release 0.1.0 schema: jobs, idempotency, journal, webhooks, settings, tasks', up: m001.up },
  { version: 2, name: 'journal in typed columns (compact), no journal_job index', up: m002.up },
  { version: 3, name: 'dialects: OpenAI files and the batches of both dialects', up: m003.up },
  { version: 4, name: 'dialects: an OpenAI file expiry policy', up: m004.up },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** A store this build cannot read safely (written by a newer jobproof). */
export class StoreVersionError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `${path} was written by a newer jobproof (store schema version ${found}; this version reads up to ${supported}). ` +
        'Run the jobproof release that wrote it, or point --db at another file.',
    );
    this.name = 'StoreVersionError';
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Apply every migration newer than the file's version; refuse a file from the future. Returns the steps applied. */
export function migrate(db: Db, path = ':memory:', migrations: readonly Migration[] = MIGRATIONS): number[] {
  const latest = migrations[migrations.length - 1]!.version;
  const found = schemaVersion(db);
  if (found > latest) throw new StoreVersionError(path, found, latest);
  const applied: number[] = [];
  for (const m of migrations) {
    if (m.version <= found) continue;
    // IMMEDIATE: two processes opening one old file at once do not both migrate it.
    db.transaction(() => {
      if (schemaVersion(db) >= m.version) return;
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
      applied.push(m.version);
    }).immediate();
  }
  return applied;
}
