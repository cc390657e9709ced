import Database from 'better-sqlite3';
import { existsSync, linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { threadId } from 'node:worker_threads';
import { migratedImage } from '../../lib/sqlite-image.js';
import { refuseNewerSqlite } from '../../lib/sqlite-migrations.js';
import { migrate, MIGRATIONS } from './migrations.js';
import { leaseMemoryDatabase, releaseDatabase } from './memory-pool.js';
import { loadImage, type StoreImage } from './store-image.js';

export type Db = Database.Database;

/**
 * Open (and migrate, see migrations.ts) the provider's SQLite store. WAL so readers never block the writer and a crash
 * loses nothing committed. `reuse`: a `:memory:` store may be a wiped one a closed short-lived provider of this
 * thread left (memory-pool.ts); close it with `closeDatabase`.
 */
export function openDatabase(path: string, opts: { reuse?: boolean; image?: StoreImage } = {}): Db {
  if (opts.image) {
    if (path !== ':memory:') throw new Error('a store image opens only as a :memory: store');
    const db = openDatabase(path, { reuse: opts.reuse });
    loadImage(db, opts.image);
    return reopened(db);
  }
  let seeded = false;
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true });
    seeded = seedNewFile(path);
  }
  // A new ':memory:' store starts from a copy of a migrated empty one: in-process runs open thousands of providers.
  // That copy is at the latest version and holds no row, and a memory database has no WAL, no file to sync and no
  // other connection to wait for: only its page cache is set.
  if (path === ':memory:') {
    if (opts.reuse) return leaseMemoryDatabase(emptyImage);
    const db = new Database(emptyImage());
    db.pragma('cache_size = -16384');
    return db;
  }
  const db = new Database(path);
  if (!seeded) refuseNewerSqlite(db, path, MIGRATIONS);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes under WAL; only an OS crash can lose the last transactions.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // 16 MiB of page cache (SQLite's default is 2 MiB): status reads over a store of 100,000+ jobs stay in memory
  // instead of going back to the OS for index and row pages (the read cost grew 1.6× from 1,000 to 10,000 jobs).
  db.pragma('cache_size = -16384');
  // A file this call just wrote from the image is at the latest version and holds no row: nothing to migrate or free.
  if (seeded) return db;
  return reopened(db, path);
}

/** What opening a store that was written before takes: migrate it, and free what a dead process left reserved. */
function reopened(db: Db, path?: string): Db {
  migrate(db, path);
  // A request that was reserving a key when the process died never executed: its key is free again.
  db.prepare(`DELETE FROM idempotency WHERE state = 'in_flight'`).run();
  return db;
}

/** Close a store `openDatabase` opened: a pooled `:memory:` one goes back to its pool. */
export function closeDatabase(db: Db): void {
  releaseDatabase(db);
}

/**
 * A new file starts as a copy of the migrated empty store (in-process runs that restart the provider make one per
 * run; migrating from scratch was ~2 % of such a run). Written beside it, then linked into place: linking fails when
 * the file appeared meanwhile, so a crash or a concurrent opener leaves either no file or a whole one, never a mix.
 * True when this call put the file in place.
 */
function seedNewFile(path: string): boolean {
  if (existsSync(path) || existsSync(`${path}-wal`)) return false;
  const tmp = `${path}.${process.pid}-${threadId}.new`;
  writeFileSync(tmp, emptyImage());
  try {
    linkSync(tmp, path);
    return true;
  } catch {
    // EEXIST: another opener was first. Anything else (a file system without hard links): migrate as before.
    return false;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** An empty store at the latest schema version, serialized once per thread. */
const emptyImage = migratedImage((db) => migrate(db));

/** Prepared statements for SQL built at run time (dynamic column lists): prepared once, reused. */
export function statementCache(db: Db): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      cache.set(sql, st);
    }
    return st;
  };
}
