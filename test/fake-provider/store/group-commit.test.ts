/**
 * Group commit keeps durability for everything a client observed: a provider killed with SIGKILL right after its
 * answers came back has every one of those requests in its journal. And the bounded journal (`--journal-max`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'main.js');
const auth = { authorization: 'Bearer dev-token' };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobproof-group-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function create(p: Provider, key: string): Promise<string> {
  const res = await p.fetch('/v1/jobs', {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': key, 'content-type': 'application/json' },
    body: '{"kind":"report","input":{}}',
  });
  return ((await res.json()) as { job_id: string }).job_id;
}

describe('group commit', () => {
  it('every answer a client received before a SIGKILL has its journal entry and its job on disk', async () => {
    const db = join(dir, 'killed.db');
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', db], { stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        const m = /listening on (\S+)/.exec(String(d));
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`provider exited ${code}`)));
    });
    const seen: Array<{ requestId: string; jobId?: string }> = [];
    // Concurrent requests, so that many share one commit; the kill comes the moment the last answer is in.
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await fetch(`${url}/v1/jobs`, {
            method: 'POST',
            headers: { ...auth, 'idempotency-key': `k-${round}-${i}`, 'content-type': 'application/json' },
            body: '{"kind":"report","input":{}}',
          });
          const body = (await res.json()) as { job_id: string };
          seen.push({ requestId: res.headers.get('x-request-id')!, jobId: body.job_id });
          const read = await fetch(`${url}/v1/jobs/${body.job_id}`, { headers: auth });
          await read.arrayBuffer();
          seen.push({ requestId: read.headers.get('x-request-id')! });
        }),
      );
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const p = createProvider({ db });
    try {
      const journal = p.journal.all();
      const requests = new Set(journal.flatMap((e) => (e.type === 'request' ? [e.request_id] : [])));
      const missing = seen.filter((s) => !requests.has(s.requestId));
      expect(missing).toEqual([]);
      for (const s of seen) if (s.jobId) expect(p.core.jobs.get(s.jobId)?.job_id).toBe(s.jobId);
      // Sequence numbers only grow, whatever the kill cut off.
      const seqs = journal.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    } finally {
      p.close();
    }
  }, 60_000);

  it('reads see every entry at once, in append order, before any commit', async () => {
    const p = createProvider();
    try {
      const id = await create(p, 'read-own');
      const entries = p.journal.since(0);
      expect(entries.map((e) => e.type)).toEqual(['transition', 'request']);
      expect(entries[1]).toMatchObject({ type: 'request', effect: 'created', job_id: id });
      expect(p.journal.lastSeq()).toBe(entries[1]!.seq);
    } finally {
      p.close();
    }
  });
});

describe('bounded journal (journalMax / --journal-max)', () => {
  for (const where of [':memory:', 'file'] as const) {
    it(`keeps only the newest N entries on ${where}, numbering carries on`, async () => {
      const p = createProvider({ db: where === 'file' ? join(dir, 'bounded.db') : ':memory:', journalMax: 50 });
      try {
        const id = await create(p, `bounded-${where}`);
        for (let i = 0; i < 300; i++) await (await p.fetch(`/v1/jobs/${id}`, { headers: auth })).arrayBuffer();
        await p.journal.committed();
        const entries = p.journal.all();
        expect(entries.length).toBeLessThanOrEqual(50);
        expect(entries.length).toBeGreaterThanOrEqual(49);
        expect(entries.at(-1)!.seq).toBe(p.journal.lastSeq());
        expect(p.journal.lastSeq()).toBeGreaterThanOrEqual(302);
        expect(entries[0]!.seq).toBeGreaterThan(p.journal.lastSeq() - 50);
      } finally {
        p.close();
      }
    });
  }

  it('the CLI refuses a --journal-max that is not a positive integer (exit 2)', () => {
    const r = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', ':memory:', '--journal-max', 'lots'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--journal-max must be a positive integer');
  });
});
