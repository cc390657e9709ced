import type Database from 'better-sqlite3';

/** database.ts imports this file, so it names the connection type itself (no import cycle). */
type Db = Database.Database;

/**
 * What a closed `:memory:` store held, row by row: every table's rows with their rowids, and AUTOINCREMENT's
 * high-water marks. A restarted in-process provider opens from it as a reopened file is opened.
 *
 * Rows rather than `db.serialize()`: a serialized store can only be opened as a new connection, which prepares every
 * repository's statements again (a restart cost 1.2 ms against 0.3 ms for a pooled open); rows load into a pooled
 * connection (memory-pool.ts) whose statements are ready. Rowids are copied too, so rows come back in the order they
 * were written and a job's `lastInsertRowid` numbering carries on as it would in the file.
 */
export interface StoreImage {
  readonly tables: ReadonlyArray<{ name: string; rows: unknown[][] }>;
  readonly sequences: unknown[][];
}

/** The tables the schema made (SQLite's own, such as sqlite_sequence, are not among them). */
function tableNames(db: Db): string[] {
  return db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[];
}

/** Every row of the store, read inside one transaction (so one consistent state) with its rowid first. */
export function takeImage(db: Db): StoreImage {
  return db.transaction(() => ({
    tables: tableNames(db).map((name) => ({ name, rows: db.prepare(`SELECT rowid, * FROM "${name}"`).raw().all() as unknown[][] })),
    sequences: db.prepare('SELECT name, seq FROM sqlite_sequence').raw().all() as unknown[][],
  }))();
}

/**
 * Fill an empty store of the same schema with an image's rows, in one transaction. Inserting explicit rowids into an
 * AUTOINCREMENT table moves its mark to the largest one; the image's own marks (which a deleted row may have left
 * higher) replace those afterwards.
 */
export function loadImage(db: Db, image: StoreImage): void {
  db.transaction(() => {
    for (const { name, rows } of image.tables) {
      if (rows.length === 0) continue;
      const insert = db.prepare(insertText(db.prepare(`SELECT rowid, * FROM "${name}" LIMIT 0`), name));
      for (const row of rows) insert.run(row);
    }
    db.prepare('DELETE FROM sqlite_sequence').run();
    const mark = db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)');
    for (const row of image.sequences) mark.run(row);
  })();
}

/** By the statement reading a table's columns: pooled connections hand the same one back, so each is read once. */
const insertTexts = new WeakMap<Database.Statement, string>();

/**
 * The insert of `SELECT rowid, *`'s row. Its first column is the rowid, named after the INTEGER PRIMARY KEY that
 * aliases it if any (that column then comes again, with the same value): it is inserted as `rowid`.
 */
function insertText(columnsOf: Database.Statement, table: string): string {
  let text = insertTexts.get(columnsOf);
  if (text === undefined) {
    const columns = columnsOf.columns();
    const names = columns.map((c, i) => (i === 0 ? 'rowid' : `"${c.name}"`));
    text = `INSERT INTO "${table}" (${names.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
    insertTexts.set(columnsOf, text);
  }
  return text;
}
