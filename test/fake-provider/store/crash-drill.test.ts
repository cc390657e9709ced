/**
 * Crash drill: `jobproof serve` as a real child process under concurrent creates, reads, cancels, replays and results
 * fetches, killed with SIGKILL again and again and restarted on the same file. Whatever a client was answered must
 * survive (docs/decisions/014-group-commit.md): each answer is in the journal with the status the client got, each
 * key a client was answered for replays its job, each job it was told of exists, and each results body served matches
 * its digest. 5 kills by default; 100 with JOBPROOF_LONG=1.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/fake-provider/index.js';
import { ensureBuilt, startCli, type CliProvider } from '../cli-provider.js';

const KILLS = process.env.JOBPROOF_LONG ? 100 : 5;
const STREAMS = 4;
const auth = { authorization: 'Bearer dev-token' };
const sha256 = (b: Uint8Array, enc: 'hex' | 'base64') => createHash('sha256').update(b).digest(enc);

interface Answer {
  requestId: string;
  status: number;
  what: string;
}

/** Everything the clients were told, over all lives of the provider. */
class Told {
  readonly answers: Answer[] = [];
  /** Keys answered 2xx, with the body they were sent with and the job they were answered with. */
  readonly keys = new Map<string, { body: string; jobId: string }>();
  /** The digest a status read gave for each succeeded job; every later read and results body must agree. */
  readonly digests = new Map<string, string>();
  readonly mismatches: string[] = [];
  resultsServed = 0;

  sawDigest(jobId: string, sha: string, where: string): void {
    const known = this.digests.get(jobId);
    if (known === undefined) this.digests.set(jobId, sha);
    else if (known !== sha) this.mismatches.push(`${jobId}: ${where} says ${sha}, earlier ${known}`);
  }
}

/** One life of the provider: streams of requests until it is killed. */
class Life {
  answered = 0;
  dead = false;
  private readonly waiters: Array<{ n: number; resolve: () => void }> = [];

  constructor(
    readonly url: string,
    readonly told: Told,
  ) {}

  /** Resolves once this life has answered `n` requests. */
  answeredAtLeast(n: number): Promise<void> {
    if (this.answered >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  /** Send one request; an answer is recorded, a dead connection ends the stream (throws). */
  async send(what: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
    if (this.dead) throw new Error('provider killed');
    const res = await fetch(`${this.url}${path}`, { method, headers: { ...auth, ...headers }, body });
    // The whole answer, body included: only then has the client been told.
    const bytes = new Uint8Array(await res.arrayBuffer());
    this.told.answers.push({ requestId: res.headers.get('x-request-id') ?? '(none)', status: res.status, what });
    this.answered++;
    for (const w of this.waiters.filter((x) => this.answered >= x.n)) w.resolve();
    return { res, bytes, json: () => JSON.parse(Buffer.from(bytes).toString('utf8')) };
  }
}

type Job = { job_id: string; state: string; result?: { sha256?: string } };

/** One client: creates, reads until final, cancels every third job, fetches results, replays an earlier key. */
async function stream(life: Life, id: string): Promise<void> {
  const { told } = life;
  for (let n = 0; ; n++) {
    const key = `drill-${id}-${n}`;
    const body = JSON.stringify({ kind: 'report', input: { stream: id, n }, client_ref: key });
    const created = await life.send('create', 'POST', '/v1/jobs', { 'idempotency-key': key, 'content-type': 'application/json' }, body);
    if (created.res.status >= 300) continue;
    const jobId = (created.json() as Job).job_id;
    told.keys.set(key, { body, jobId });
    if (n % 3 === 2) await life.send('cancel', 'POST', `/v1/jobs/${jobId}/cancel`);
    let job: Job = created.json() as Job;
    for (let reads = 0; reads < 50 && !['succeeded', 'failed', 'cancelled', 'expired'].includes(job.state); reads++) {
      const read = await life.send('read', 'GET', `/v1/jobs/${jobId}`);
      if (read.res.status !== 200) break;
      job = read.json() as Job;
    }
    if (job.state === 'succeeded' && job.result?.sha256) {
      told.sawDigest(jobId, job.result.sha256, 'a status read');
      const results = await life.send('results', 'GET', `/v1/jobs/${jobId}/results`);
      if (results.res.status === 200) {
        told.resultsServed++;
        told.sawDigest(jobId, sha256(results.bytes, 'hex'), 'the results body');
        const header = results.res.headers.get('content-digest');
        if (header !== `sha-256=:${sha256(results.bytes, 'base64')}:`) told.mismatches.push(`${jobId}: Content-Digest ${header}`);
      }
    }
    // A key from earlier, maybe from a life before the last kill: it replays its job.
    const earlier = [...told.keys].at(-(1 + (n % Math.max(1, told.keys.size))));
    if (earlier) {
      const [k, v] = earlier;
      const replay = await life.send('replay', 'POST', '/v1/jobs', { 'idempotency-key': k, 'content-type': 'application/json' }, v.body);
      if (replay.res.status < 300 && (replay.json() as Job).job_id !== v.jobId)
        told.mismatches.push(`key ${k} replayed ${(replay.json() as Job).job_id}, not ${v.jobId}`);
    }
  }
}

let dir: string;
let child: CliProvider | null = null;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'jobproof-drill-'));
}, 180_000);
afterAll(async () => {
  await child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('crash drill: SIGKILL and restart on the same file', () => {
  it(
    `loses nothing a client was answered (${KILLS} kills)`,
    async () => {
      const db = join(dir, 'drill.db');
      const told = new Told();
      for (let kill = 0; kill < KILLS; kill++) {
        child = await startCli(db);
        if (kill === 0) {
          const behavior = { default: { duration_ms: 40, items: 3 } };
          const put = await fetch(`${child.url}/_control/behavior`, {
            method: 'PUT',
            headers: { authorization: 'Bearer control-token', 'content-type': 'application/json' },
            body: JSON.stringify(behavior),
          });
          expect(put.status).toBe(200);
        }
        const life = new Life(child.url, told);
        const streams = Array.from({ length: STREAMS }, (_, i) => stream(life, `${kill}-${i}`).catch(() => undefined));
        // The kill falls at a different point of the traffic each time, with every stream mid-request.
        await life.answeredAtLeast(60 + ((kill * 37) % 140));
        life.dead = true;
        await child.kill();
        await Promise.all(streams);
      }
      child = null;

      const p = createProvider({ db });
      try {
        const journal = p.journal.all();
        const statusOf = new Map(journal.flatMap((e) => (e.type === 'request' ? [[e.request_id, e] as const] : [])));
        const missing = told.answers.filter((a) => statusOf.get(a.requestId)?.status !== a.status);
        const jobs = new Set(p.jobs().map((j) => j.job_id));
        const lostJobs = [...told.keys.values()].filter((k) => !jobs.has(k.jobId));
        const lostKeys: string[] = [];
        for (const [key, v] of told.keys) {
          const res = await p.fetch('/v1/jobs', {
            method: 'POST',
            headers: { ...auth, 'idempotency-key': key, 'content-type': 'application/json' },
            body: v.body,
          });
          const again = (await res.json()) as Job;
          if (res.headers.get('idempotent-replayed') !== 'true' || again.job_id !== v.jobId) lostKeys.push(key);
        }
        // Every job that succeeded, results rendered again after all the restarts: the digest it recorded.
        let rechecked = 0;
        for (const [jobId, sha] of told.digests) {
          const res = await p.fetch(`/v1/jobs/${jobId}/results`, { headers: auth });
          if (res.status !== 200) continue;
          rechecked++;
          const got = sha256(new Uint8Array(await res.arrayBuffer()), 'hex');
          if (got !== sha) told.mismatches.push(`${jobId}: results after the last restart hash ${got}, digest ${sha}`);
        }
        const seqs = journal.map((e) => e.seq);
        console.log(
          `crash drill: ${KILLS} kills, ${told.answers.length} requests answered, ${journal.length} journal entries checked ` +
            `(${statusOf.size} requests), ${told.keys.size} keys replayed, ${told.resultsServed} results served + ${rechecked} re-fetched; ` +
            `${missing.length} answered-but-missing, ${told.mismatches.length} digest mismatches, ${lostJobs.length} lost jobs, ${lostKeys.length} lost keys`,
        );
        expect(missing).toEqual([]);
        expect(told.mismatches).toEqual([]);
        expect(lostJobs).toEqual([]);
        expect(lostKeys).toEqual([]);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        // The drill exercised what it claims to.
        expect(told.answers.length).toBeGreaterThan(KILLS * 60);
        expect(told.resultsServed).toBeGreaterThan(0);
        expect(told.answers.some((a) => a.what === 'cancel' && a.status === 202)).toBe(true);
      } finally {
        p.close();
      }
    },
    process.env.JOBPROOF_LONG ? 1_800_000 : 180_000,
  );
});
