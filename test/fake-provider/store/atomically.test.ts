/** `atomically` is `db.transaction(fn)()` with one transaction function per connection: same commits, same rollbacks. */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { atomically } from '../../../src/fake-provider/store/atomically.js';

function table(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (v INTEGER)');
  return db;
}
const values = (db: Database.Database) =>
  db
    .prepare<[], { v: number }>('SELECT v FROM t ORDER BY v')
    .all()
    .map((r) => r.v);

describe('atomically', () => {
  it('commits on its own outside a transaction and returns what fn returns', () => {
    const db = table();
    expect(atomically(db, () => db.prepare('INSERT INTO t VALUES (1)').run().changes)).toBe(1);
    expect(db.inTransaction).toBe(false);
    expect(values(db)).toEqual([1]);
  });

  it('rolls back everything fn wrote when it throws, and rethrows', () => {
    const db = table();
    expect(() =>
      atomically(db, () => {
        db.exec('INSERT INTO t VALUES (1)');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.inTransaction).toBe(false);
    expect(values(db)).toEqual([]);
  });

  it("inside a caller's transaction is a savepoint: a failed one leaves the caller's writes and stays open", () => {
    const db = table();
    db.exec('BEGIN');
    db.exec('INSERT INTO t VALUES (1)');
    atomically(db, () => db.exec('INSERT INTO t VALUES (2)'));
    expect(() =>
      atomically(db, () => {
        db.exec('INSERT INTO t VALUES (3)');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.inTransaction).toBe(true);
    db.exec('COMMIT');
    expect(values(db)).toEqual([1, 2]);
  });

  it('nests, and keeps one function per connection (two databases do not share it)', () => {
    const a = table();
    const b = table();
    atomically(a, () => atomically(b, () => atomically(a, () => a.exec('INSERT INTO t VALUES (1)'))));
    atomically(b, () => b.exec('INSERT INTO t VALUES (2)'));
    expect([values(a), values(b)]).toEqual([[1], [2]]);
  });
});
