/**
 * `backgroundCheckpoint` (jobproof serve): WAL checkpoints run on a thread of their own, and after close() the store
 * file alone holds everything, as after any close.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';

const dir = mkdtempSync(join(tmpdir(), 'jobproof-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function createJobs(p: Provider, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await p.fetch('/v1/jobs', {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'idempotency-key': `k-${i}`, 'content-type': 'application/json' },
      body: '{"kind":"report","input":{}}',
    });
    ids.push(((await res.json()) as { job_id: string }).job_id);
  }
  await p.journal.committed();
  return ids;
}

describe('background checkpoint', () => {
  // 40 creates write a few hundred WAL pages: below SQLite's own checkpoint threshold (1,000), so the store file grows
  // only if the thread copies them.
  it('copies committed pages into the store file while the provider runs; without it the file does not grow', async () => {
    const plain = createProvider({ db: join(dir, 'plain.db') });
    const size0 = statSync(join(dir, 'plain.db')).size;
    await createJobs(plain, 40);
    expect(statSync(join(dir, 'plain.db')).size).toBe(size0);
    plain.close();

    const db = join(dir, 'bg.db');
    const p = createProvider({ db, backgroundCheckpoint: true });
    const before = statSync(db).size;
    await createJobs(p, 40);
    await vi.waitFor(() => expect(statSync(db).size).toBeGreaterThan(before), { timeout: 10_000, interval: 20 });
    p.close();
  });

  it('after close() a copy of the store file alone has every job and journal entry', async () => {
    const db = join(dir, 'closed.db');
    // One clock that does not move for both providers: no job falls due between counting the entries and reopening
    // (a reopened provider catches up on due transitions and journals them).
    const clock = new VirtualClock();
    const p = createProvider({ db, clock, backgroundCheckpoint: true });
    const ids = await createJobs(p, 25);
    const entries = p.journal.lastSeq();
    p.close();
    expect(!existsSync(`${db}-wal`) || statSync(`${db}-wal`).size === 0).toBe(true);
    const copy = join(dir, 'copy.db');
    copyFileSync(db, copy);
    const reopened = createProvider({ db: copy, clock });
    expect(reopened.jobs().map((j) => j.job_id)).toEqual(expect.arrayContaining(ids));
    expect(reopened.journal.lastSeq()).toBe(entries);
    reopened.close();
  });
});
