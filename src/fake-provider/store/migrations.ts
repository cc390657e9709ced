import { migrateSqlite, type Migration } from '../../lib/sqlite-migrations.js';
import * as m001 from './migrations/001-release-0.1.0.js';
import * as m002 from './migrations/002-compact-journal.js';
import * as m003 from './migrations/003-dialects.js';
import * as m004 from './migrations/004-file-expiry.js';

/** database.ts imports this file, so it names the connection type itself (no import cycle). */
type Db = Parameters<typeof migrateSqlite>[0];

/**
 * The provider store's schema history, applied by the one migrations helper of every store (src/lib/sqlite-migrations.ts):
 * `PRAGMA user_version` holds the number of the last step applied.
 *
 * To change the schema: add a file `migrations/NNN-what.ts` exporting `up(db)`, append it below with the next
 * number, never edit or reorder a published step (files in the field were written by it). Test: a file written by
 * the previous release (test/fixtures/) must open and migrate (test/fake-provider/store/migrations.test.ts).
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'release 0.1.0 schema: jobs, idempotency, journal, webhooks, settings, tasks', up: m001.up },
  { version: 2, name: 'journal in typed columns (compact), no journal_job index', up: m002.up },
  { version: 3, name: 'dialects: OpenAI files and the batches of both dialects', up: m003.up },
  { version: 4, name: 'dialects: an OpenAI file expiry policy', up: m004.up },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Apply every migration newer than the file's version; refuse a file from the future. Returns the steps applied. */
export function migrate(db: Db, path = ':memory:', migrations: readonly Migration[] = MIGRATIONS): number[] {
  return migrateSqlite(db, path, migrations);
}
