/**
 * An in-process run restarts its `:memory:` provider from the image the closed one left (`closeToImage` → `image`),
 * where it used to reopen a file. Both must carry on alike: the same answers, journal, jobs and rows after the
 * restart — a job created before it, a replay of its key, a key reserved by a request still held at the close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProvider, type Provider, type StoreImage } from '../../../src/fake-provider/index.js';
import { settle, VirtualClock } from '../../../src/lib/clock.js';
import { seededIds } from '../../../src/lib/ids.js';
import { createInit, getInit } from '../faults/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'jobproof-restart-image-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function restartedRun(kind: 'file' | 'image') {
  const clock = new VirtualClock();
  const ids = seededIds(3);
  const path = join(dir, `${Math.random().toString(36).slice(2)}.db`);
  const open = (first: boolean, image?: StoreImage): Provider =>
    createProvider({
      clock,
      ids,
      shortLived: true,
      ...(kind === 'file' ? { db: path } : { db: ':memory:', restartable: true, ...(image ? { image } : {}) }),
      // The plan is the store's (as the in-process driver does, installed by the first open only).
      ...(first
        ? {
            behavior: { default: { duration_ms: 400 } },
            faults: { seed: 1, rules: [{ id: 'hold', on: 'create', nth: 2, fault: { type: 'delay', ms: 5000 } }] },
          }
        : {}),
    });
  const answers: unknown[] = [];
  const call = async (p: Provider, path: string, init: RequestInit) => {
    const res = await p.fetch(path, init).catch(() => null);
    const body = res ? await res.text() : 'lost';
    answers.push([path, res?.status ?? null, body]);
    return body;
  };
  let p = open(true);
  const a = JSON.parse(await call(p, '/v1/jobs', createInit('key-a'))).job_id as string;
  // Held at the provider when it closes: its key stays reserved in the store until the reopen frees it.
  void p.fetch('/v1/jobs', createInit('key-b')).catch(() => null);
  await settle();
  let image: StoreImage | undefined;
  if (kind === 'image') image = p.closeToImage();
  else p.close();
  await clock.advance(200);
  p = open(false, image);
  await call(p, `/v1/jobs/${a}`, getInit());
  await call(p, '/v1/jobs', createInit('key-a'));
  await call(p, '/v1/jobs', createInit('key-b'));
  await clock.advance(1000);
  await settle();
  await call(p, `/v1/jobs/${a}/results`, getInit());
  const db = p.core.db;
  const rows = Object.fromEntries(
    (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]).map((t) => [
      t,
      db.prepare(`SELECT rowid AS _rowid, * FROM "${t}" ORDER BY rowid`).all(),
    ]),
  );
  const seen = { answers, journal: p.journal.all(), jobs: p.jobs(), rows };
  p.close();
  return seen;
}

describe('restarting a :memory: provider from its image', () => {
  it('carries on exactly as a provider reopened on its file', async () => {
    const file = await restartedRun('file');
    const image = await restartedRun('image');
    expect(image).toEqual(file);
    // What the comparison covers: the job made before the restart is there after it, and its key replays.
    const a = JSON.parse(String((file.answers[0] as unknown[])[2])).job_id;
    expect(file.answers.filter((x) => String((x as unknown[])[2]).includes(a)).length).toBeGreaterThanOrEqual(3);
    expect(file.journal.length).toBeGreaterThan(5);
  });

  it('closeToImage on a closed provider says so', async () => {
    const p = createProvider({ db: ':memory:' });
    p.close();
    expect(() => p.closeToImage()).toThrow(/closed already/);
  });
});
