import Database from 'better-sqlite3';

/** database.ts imports this file, so it names the connection type itself (no import cycle). */
type Db = Database.Database;

/**
 * Released `:memory:` stores of short-lived providers (in-process schedules), kept for the next one on this thread.
 *
 * A schedule's provider lived on a new connection from the migrated image: opening it, setting its page cache,
 * preparing every repository's statements and closing it again were ~8 % of a schedule. A pooled connection is
 * wiped when it is taken (every table emptied, AUTOINCREMENT's sequences forgotten: the image holds no row, so an
 * emptied store answers, numbers and orders exactly as a fresh copy does — test/fake-provider/store/memory-pool.test.ts)
 * and hands back the statements prepared on it before: the n-th `prepare` of a text in one lease gets the n-th
 * statement of that text from earlier leases, so two repositories preparing the same text still hold two statements.
 *
 * Module state is per thread (lanes are worker threads), so a connection never crosses threads.
 */
interface Pooled {
  db: Db;
  image: () => Buffer;
  wipe: () => void;
  /** How many times each text was prepared in this lease. */
  handedOut: Map<string, number>;
}

/** More than a thread keeps open at once in a schedule (one provider, and a test's few): the rest is closed. */
const KEEP = 4;
/** A text prepared more often than this in one lease (a reset's one-off statement) is not kept beyond it. */
const KEEP_PER_TEXT = 4;

/** Idle connections by the image they were opened on. */
const idle = new Map<() => Buffer, Pooled[]>();
const leased = new WeakMap<Db, Pooled>();

/** A wiped pooled connection opened on `image`, or a new one on it made poolable. */
export function leaseMemoryDatabase(image: () => Buffer): Db {
  const p = idle.get(image)?.pop();
  if (p) {
    // Wiped when taken, not when released: a straggler of the run before (a promise of its closed provider
    // settling late) cannot leave a row behind for this run.
    p.wipe();
    p.handedOut.clear();
    leased.set(p.db, p);
    return p.db;
  }
  const db = new Database(image());
  db.pragma('cache_size = -16384');
  const fresh = poolable(db, image);
  leased.set(db, fresh);
  return db;
}

/** Close a provider's store: a leased connection goes back to the pool (or is closed when the pool is full). */
export function releaseDatabase(db: Db): void {
  const p = leased.get(db);
  leased.delete(db);
  const list = (p && idle.get(p.image)) ?? [];
  if (!p || !db.open || db.inTransaction || list.length >= KEEP) {
    if (db.open) db.close();
    return;
  }
  idle.set(p.image, list);
  list.push(p);
}

function poolable(db: Db, image: () => Buffer): Pooled {
  const native = db.prepare.bind(db);
  const kept = new Map<string, Database.Statement[]>();
  const handedOut = new Map<string, number>();
  const prepare = (sql: string): Database.Statement => {
    const n = handedOut.get(sql) ?? 0;
    handedOut.set(sql, n + 1);
    const list = kept.get(sql) ?? [];
    if (list.length === 0) kept.set(sql, list);
    const st = list[n];
    if (!st) {
      const made = native(sql);
      if (list.length < KEEP_PER_TEXT) list.push(made);
      return made;
    }
    // As a new statement: whatever mode its earlier holder set (raw, pluck, expand) is off again.
    if (st.reader) st.raw(false).pluck(false).expand(false);
    return st;
  };
  // An own property over the prototype's: repositories keep calling `db.prepare` as on any connection.
  db.prepare = prepare as Db['prepare'];
  const tables = native(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).pluck().all() as string[];
  const deletes = [...tables, 'sqlite_sequence'].map((t) => native(`DELETE FROM "${t}"`));
  const wipe = db.transaction(() => {
    for (const d of deletes) d.run();
  });
  return { db, image, wipe: () => wipe(), handedOut };
}
