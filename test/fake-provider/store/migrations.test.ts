/**
 * Schema versions of the provider store: a file written by release 0.1.0 (no version recorded) is migrated and
 * carries on; a file from a newer jobproof is refused with a clear message and left untouched.
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/fake-provider/index.js';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from '../../../src/fake-provider/store/migrations.js';
import { SchemaTooNewError, sqliteSchemaVersion as schemaVersion } from '../../../src/lib/sqlite-migrations.js';
import { VirtualClock } from '../../../src/lib/clock.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const FIXTURE = join(REPO, 'test', 'fixtures', 'provider-0.1.0.sqlite');
const CLI = join(REPO, 'dist', 'cli', 'main.js');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobproof-migrate-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function copyOf(name: string): string {
  const path = join(dir, name);
  copyFileSync(FIXTURE, path);
  return path;
}

const auth = { authorization: 'Bearer dev-token' };

describe('provider store migrations', () => {
  it('are numbered 1..n in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('a new store is created at the latest version', () => {
    const p = createProvider({ db: join(dir, 'new.db') });
    expect(schemaVersion(p.core.db)).toBe(SCHEMA_VERSION);
    p.close();
  });

  it('a file written by release 0.1.0 is migrated: its jobs, keys and journal carry on', async () => {
    const path = copyOf('old.db');
    const before = new Database(path, { readonly: true });
    expect(schemaVersion(before)).toBe(0);
    const oldJobs = before.prepare('SELECT job_id, state FROM jobs ORDER BY seq').all() as { job_id: string; state: string }[];
    const oldJournal = before.prepare('SELECT seq, entry FROM journal ORDER BY seq').all() as { seq: number; entry: string }[];
    before.close();
    expect(oldJobs.map((j) => j.state)).toEqual(['succeeded', 'cancelling']);

    // The old provider stopped at 12:00:01.8, its second job cancelling; reopened just after.
    const clock = new VirtualClock(Date.parse('2026-11-30T12:00:02.000Z'));
    const p = createProvider({ db: path, clock });
    try {
      expect(schemaVersion(p.core.db)).toBe(SCHEMA_VERSION);
      // Every journal entry of the old file reads back as it was written.
      const journal = p.journal.since(0, oldJournal.length);
      expect(journal).toEqual(oldJournal.map((r) => ({ ...JSON.parse(r.entry), seq: r.seq })));

      const done = await p.fetch(`/v1/jobs/${oldJobs[0]!.job_id}`, { headers: auth });
      expect(done.status).toBe(200);
      expect(await done.json()).toMatchObject({ job_id: oldJobs[0]!.job_id, state: 'succeeded' });
      // The stored idempotent answer replays; a new create gets the next journal sequence number.
      const replay = await p.fetch('/v1/jobs', {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': 'fixture-done', 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'report', input: { n: 1 }, client_ref: 'ref-done' }),
      });
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await replay.json()).job_id).toBe(oldJobs[0]!.job_id);
      const last = p.journal.since(oldJournal.at(-1)!.seq);
      expect(last[0]!.seq).toBe(oldJournal.at(-1)!.seq + 1);
      expect(last.find((e) => e.type === 'request' && e.idempotency_key === 'fixture-done')).toMatchObject({
        effect: 'replayed',
        route: 'create',
      });

      // The job that was cancelling when the old release stopped moves on with the clock.
      await clock.advance(5_000);
      const cancelled = await (await p.fetch(`/v1/jobs/${oldJobs[1]!.job_id}`, { headers: auth })).json();
      expect(cancelled.state).toBe('cancelled');
      // Tasks tables exist (migration 1 adopted them).
      expect((await p.fetch('/v1/tasks/task_nope', { headers: auth })).status).toBe(404);
    } finally {
      p.close();
    }
  });

  it('a file from a newer jobproof is refused with a clear message and left as it was', () => {
    const path = copyOf('newer.db');
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const bytes = readFileSync(path);
    expect(() => createProvider({ db: path })).toThrow(SchemaTooNewError);
    expect(() => createProvider({ db: path })).toThrow(
      /has schema version \d+, but this jobproof release knows versions up to \d+: it was written by a newer release/,
    );
    expect(readFileSync(path).equals(bytes)).toBe(true);

    const run = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', path], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('written by a newer release');
  });

  it('a failing step leaves the file at the last whole step', () => {
    const db = new Database(':memory:');
    const steps = [
      ...MIGRATIONS,
      {
        version: MIGRATIONS.length + 1,
        name: 'boom',
        up: (d: Database.Database) => {
          d.exec('CREATE TABLE half (x)');
          throw new Error('boom');
        },
      },
    ];
    expect(() => migrate(db, ':memory:', steps)).toThrow('boom');
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'half'`).get()).toBeUndefined();
    db.close();
  });
});
