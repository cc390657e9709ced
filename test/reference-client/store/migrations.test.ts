import Database from 'better-sqlite3';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAudit } from '../../../src/reference-client/index.js';
import { pendingMigrations, SchemaTooNewError } from '../../../src/lib/sqlite-migrations.js';
import { PgOperationStore } from '../../../src/reference-client/store/pg-store.js';
import { PG_OPERATION_MIGRATIONS } from '../../../src/reference-client/store/pg-schema.js';
import { SQLITE_OPERATION_MIGRATIONS } from '../../../src/reference-client/store/sqlite-schema.js';
import { SqliteOperationStore } from '../../../src/reference-client/store/sqlite-store.js';
import { SQLITE_TASK_MIGRATIONS, SqliteTaskStore } from '../../../src/reference-client/tasks/store.js';
import { dropSchema, pgUrl, uniqueSchema } from '../../helpers/pg.js';
import { bench, type Bench } from '../harness.js';
import { tempDir } from '../helpers.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'release-0.1.0');
const version = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe('schema versions and migrations', () => {
  let b: Bench | null = null;
  afterEach(() => {
    b?.close();
    b = null;
  });

  it('plans the steps after the current version and refuses a newer store (pure)', () => {
    const list = [
      { version: 1, name: 'a', sql: '' },
      { version: 2, name: 'b', sql: '' },
    ];
    expect(pendingMigrations('s', 0, list).map((m) => m.name)).toEqual(['a', 'b']);
    expect(pendingMigrations('s', 1, list).map((m) => m.name)).toEqual(['b']);
    expect(pendingMigrations('s', 2, list)).toEqual([]);
    expect(() => pendingMigrations('s', 3, list)).toThrow(SchemaTooNewError);
    expect(() => pendingMigrations('s', 0, [{ version: 2, name: 'x', sql: '' }])).toThrow(/expected 1/);
    expect(SQLITE_OPERATION_MIGRATIONS.map((m) => m.version)).toEqual([1, 2]);
  });

  it('migrates a client.db written by release 0.1.0 and a worker carries on with it', async () => {
    b = bench();
    copyFileSync(join(FIXTURE, 'client.db'), join(b.dir, 'client.db'));
    expect(version(join(b.dir, 'client.db'))).toBe(0);
    // The old release ran on the wall clock: bring the virtual clock to the moment the fixture was written.
    const raw = new Database(join(b.dir, 'client.db'), { readonly: true });
    const { t } = raw.prepare('SELECT MAX(submitted_at) AS t FROM operations').get() as { t: number };
    raw.close();
    await b.clock.advance(t - b.clock.now());
    const c = b.client('worker-new');
    expect(version(join(b.dir, 'client.db'))).toBe(SQLITE_OPERATION_MIGRATIONS.length);
    const cols = new Database(join(b.dir, 'client.db'), { readonly: true });
    expect((cols.prepare('PRAGMA table_info(history)').all() as { name: string }[]).map((c) => c.name)).toContain('lease_token');
    cols.close();
    // What the old release wrote reads back: a finished operation with its history, an intent, a cancel intent.
    const done = await c.show('op_done');
    expect(done.state).toBe('succeeded');
    expect([done.history[0]!.to, done.history.at(-1)!.to]).toEqual(['create_pending', 'succeeded']);
    expect((await c.show('op_cancel')).cancel).toMatchObject({ actor: 'alice', reason: 'not needed' });
    expect((await verifyAudit(b.dir)).ok).toBe(true);
    // And the new release finishes the old release's open work.
    await b.work(c);
    expect((await c.show('op_open')).state).toBe('succeeded');
    expect((await c.show('op_cancel')).state).toBe('cancelled');
    expect(b.requests().filter((e) => e.route === 'create' && e.client_ref === 'op_cancel')).toEqual([]);
    expect(await verifyAudit(b.dir)).toMatchObject({ ok: true });
  });

  it('migrates a tasks.db written by release 0.1.0', async () => {
    const t = tempDir();
    copyFileSync(join(FIXTURE, 'tasks.db'), join(t.dir, 'tasks.db'));
    const s = SqliteTaskStore.open(t.dir);
    expect(version(join(t.dir, 'tasks.db'))).toBe(SQLITE_TASK_MIGRATIONS.length);
    expect((await s.get('top_1'))!.task_id).toBe('task_1');
    expect((await s.history('top_1')).map((h) => h.to)).toEqual(['create_pending', 'waiting']);
    await s.close();
    t.cleanup();
  });

  it('refuses a store file from a newer release with a clear message, and leaves it untouched', () => {
    const t = tempDir();
    for (const [file, open] of [
      ['client.db', () => SqliteOperationStore.open(t.dir)],
      ['tasks.db', () => SqliteTaskStore.open(t.dir)],
    ] as const) {
      const path = join(t.dir, file);
      copyFileSync(join(FIXTURE, file), path);
      const db = new Database(path);
      db.pragma('user_version = 99');
      db.pragma('journal_mode = DELETE');
      db.close();
      const before = readFileSync(path);
      expect(open).toThrow(/schema version 99, but this jobproof release knows versions up to \d: it was written by a newer release/);
      expect(readFileSync(path).equals(before)).toBe(true);
    }
    t.cleanup();
  });

  const url = pgUrl();
  it.skipIf(url === null)('PostgreSQL: the same versions; a schema from a newer release is refused', async () => {
    const schema = uniqueSchema('mig');
    const s = new PgOperationStore(url!, schema);
    try {
      await s.hasOpen();
      expect((await s.pool.query('SELECT version FROM schema_version')).rows[0].version).toBe(PG_OPERATION_MIGRATIONS.length);
      await s.pool.query('UPDATE schema_version SET version = 99');
      const again = new PgOperationStore(url!, schema);
      await expect(again.hasOpen()).rejects.toThrow(SchemaTooNewError);
      await again.close();
    } finally {
      await s.close();
      await dropSchema(url!, schema);
    }
  });
});
