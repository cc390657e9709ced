/**
 * A short-lived provider's `:memory:` store is a pooled connection a closed one left (store/memory-pool.ts). A
 * provider on such a reused connection is indistinguishable from one on a fresh image: the same workload gives the
 * same answers, ids, journal (sequence numbers included), jobs and rows, table by table.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/fake-provider/index.js';
import { leaseMemoryDatabase, releaseDatabase } from '../../../src/fake-provider/store/memory-pool.js';
import { settle, VirtualClock } from '../../../src/lib/clock.js';
import { migratedImage } from '../../../src/lib/sqlite-image.js';
import { seededIds } from '../../../src/lib/ids.js';
import { controlInit, createInit, getInit, inProcessReceiver } from '../faults/helpers.js';

/** Creates (one replayed, one with a webhook), reads, a cancel, faults installed through control, the jobs run out. */
async function workload(shortLived: boolean) {
  const clock = new VirtualClock();
  const receiver = inProcessReceiver(clock);
  const verified: boolean[] = [];
  // A delivery's timestamp is wall-clock time by design (signing.ts), so two runs a second apart sign differently:
  // each signature is checked here against its own stamp, and the comparison below leaves the two headers out.
  const webhookFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => {
      headers[k] = v;
    });
    try {
      new Webhook(Object.values(p.tokens.webhook_secrets)[0]!).verify(await req.clone().text(), headers);
      verified.push(true);
    } catch {
      verified.push(false);
    }
    return receiver.fetch(req);
  }) as typeof fetch;
  const p = createProvider({
    clock,
    ids: seededIds(7),
    shortLived,
    behavior: { default: { duration_ms: 400, items: 3 } },
    webhookFetch,
  });
  const answers: unknown[] = [];
  const call = async (path: string, init: RequestInit) => {
    const res = await p.fetch(path, init).catch(() => null);
    if (!res) return void answers.push([path, 'lost']);
    const body = await res.text();
    answers.push([path, res.status, body]);
    return body;
  };
  const a = JSON.parse((await call('/v1/jobs', createInit('key-a'))) ?? '').job_id as string;
  await call('/v1/jobs', createInit('key-a'));
  const b = JSON.parse((await call('/v1/jobs', createInit('key-b', { webhook_url: 'http://hooks.test/' }))) ?? '').job_id as string;
  await call('/_control/faults', controlInit('PUT', { rules: [{ on: 'read', nth: 1, fault: { type: 'lose_response' } }] }));
  await call(`/v1/jobs/${a}`, getInit());
  await call(`/v1/jobs/${b}/cancel`, { ...getInit(), method: 'POST' });
  await clock.advance(1000);
  await settle();
  await call(`/v1/jobs/${a}`, getInit());
  await call(`/v1/jobs/${a}/results`, getInit());
  await p.idle();
  const db = p.core.db;
  const rows = Object.fromEntries(
    (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]).map((t) => [
      t,
      db.prepare(`SELECT rowid AS _rowid, * FROM "${t}" ORDER BY rowid`).all(),
    ]),
  );
  const received = receiver.received.map(({ headers, ...d }) => {
    const { 'webhook-timestamp': _t, 'webhook-signature': _s, ...rest } = headers;
    return { ...d, headers: rest };
  });
  const seen = { answers, journal: p.journal.all(), jobs: p.jobs(), received, verified, rows, lastSeq: p.journal.lastSeq() };
  p.close();
  return { seen, db };
}

describe('pooled :memory: stores of short-lived providers', () => {
  it('a provider on a reused connection sees exactly what one on a fresh image sees', async () => {
    const fresh = await workload(false);
    const first = await workload(true);
    const reused = await workload(true);
    // The second short-lived provider ran on the first one's connection, after its rows and sequences were wiped.
    expect(reused.db).toBe(first.db);
    expect(first.seen.journal.length).toBeGreaterThan(10);
    expect(first.seen.rows.jobs.length).toBe(2);
    expect(first.seen.received.length).toBe(2);
    expect(first.seen.verified).toEqual([true, true]);
    expect(first.seen.answers.map((a) => (a as unknown[])[1])).toEqual([202, 202, 202, 200, 'lost', 202, 200, 200]);
    expect(first.seen).toEqual(fresh.seen);
    expect(reused.seen).toEqual(fresh.seen);
  });

  it('hands the n-th preparation of a text the n-th statement of earlier leases, its modes reset, its rows gone', () => {
    const image = migratedImage((db) => db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY AUTOINCREMENT, b)'));
    const db = leaseMemoryDatabase(image);
    const insert = db.prepare('INSERT INTO t (b) VALUES (?)');
    insert.run('x');
    const one = db.prepare('SELECT a, b FROM t').pluck();
    const two = db.prepare('SELECT a, b FROM t');
    expect(two).not.toBe(one);
    expect([one.get(), two.get()]).toEqual([1, { a: 1, b: 'x' }]);
    releaseDatabase(db);
    expect(db.open).toBe(true);

    const again = leaseMemoryDatabase(image);
    expect(again).toBe(db);
    expect(again.prepare('INSERT INTO t (b) VALUES (?)')).toBe(insert);
    const first = again.prepare('SELECT a, b FROM t');
    expect(first).toBe(one);
    expect(again.prepare('SELECT a, b FROM t')).toBe(two);
    expect(first.all()).toEqual([]);
    insert.run('y');
    // Not plucked any more, and AUTOINCREMENT numbers from 1 again.
    expect(first.get()).toEqual({ a: 1, b: 'y' });
    releaseDatabase(again);
  });
});
