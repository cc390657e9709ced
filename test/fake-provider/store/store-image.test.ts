/**
 * A store image (store-image.ts) must give back what a serialized store would: every row with its rowid (gaps left by
 * deletes included) and AUTOINCREMENT's marks, also where the newest row was deleted, so numbers are never reused.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadImage, takeImage } from '../../../src/fake-provider/store/store-image.js';

const SCHEMA = `
  CREATE TABLE log (seq INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT NOT NULL);
  CREATE TABLE keys (name TEXT PRIMARY KEY, value BLOB, n REAL);
`;

function fresh(): Database.Database {
  const db = new Database(':memory:');
  db.exec(SCHEMA);
  return db;
}

function dump(db: Database.Database) {
  return {
    log: db.prepare('SELECT rowid, * FROM log ORDER BY rowid').all(),
    keys: db.prepare('SELECT rowid, * FROM keys ORDER BY rowid').all(),
    marks: db.prepare('SELECT * FROM sqlite_sequence ORDER BY name').all(),
  };
}

describe('store image', () => {
  it('carries rows, rowid gaps and AUTOINCREMENT marks over to an empty store', () => {
    const a = fresh();
    for (const w of ['a', 'b', 'c', 'd']) a.prepare('INSERT INTO log (what) VALUES (?)').run(w);
    a.prepare('DELETE FROM log WHERE seq IN (2, 4)').run();
    for (const [k, v, n] of [
      ['x', Buffer.from([1, 2]), 1.5],
      ['y', null, -3],
      ['z', Buffer.alloc(0), 0],
    ] as const)
      a.prepare('INSERT INTO keys VALUES (?, ?, ?)').run(k, v, n);
    a.prepare(`DELETE FROM keys WHERE name = 'y'`).run();

    const b = fresh();
    loadImage(b, takeImage(a));
    expect(dump(b)).toEqual(dump(a));
    expect(dump(b).marks).toEqual([{ name: 'log', seq: 4 }]);
    // The next number is the one the original store would hand out, not one a deleted row had.
    const next = (db: Database.Database) => db.prepare(`INSERT INTO log (what) VALUES ('e')`).run().lastInsertRowid;
    expect(next(b)).toBe(next(a));
    expect(next(b)).toBe(6);
  });

  it('an empty store gives an empty image that loads to an empty store', () => {
    const b = fresh();
    loadImage(b, takeImage(fresh()));
    expect(dump(b)).toEqual({ log: [], keys: [], marks: [] });
  });
});
