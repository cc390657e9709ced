/**
 * Provider at scale: a store holding N jobs (created an hour ago, all finished, each with its journal), then the
 * provider CLI serving it: RSS idle and after load, and status-read throughput/latency over ids spread across the store.
 */
import { fork } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProvider } from '../../src/fake-provider/index.js';
import { behaviorFor } from '../../src/contract/behavior.js';
import { realClock, type Clock } from '../../src/lib/clock.js';
import { load } from './autocannon-run.js';
import { log, mb, median, sleep, TMP, waitIdle } from './common.js';
import { startProvider, TOKEN } from './http-targets.js';

export interface ProviderScaleConfig {
  sizes: number[];
  reps: number;
  durationS: number;
  warmS: number;
  connections: number;
}

export interface ProviderScalePoint {
  jobs: number;
  seedS: number;
  startS: number;
  dbMb: number;
  rssIdleMb: number;
  rssAfterMb: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

export interface ProviderScaleSection {
  config: ProviderScaleConfig;
  points: ProviderScalePoint[];
  /** p50 latency at the largest size ÷ at the smallest. */
  latencyGrowth: number;
  rpsRatio: number;
  /** (RSS after load at the largest size − at the smallest) ÷ the difference in jobs. */
  bytesPerJob: number;
}

/** In a child: fill a store with n finished jobs, return a sample of their ids. */
function seed(n: number, db: string): string[] {
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  let offset = 3_600_000;
  const clock: Clock = {
    now: () => Date.now() - offset,
    setTimeout: (fn, ms) => realClock.setTimeout(fn, ms),
    clearTimeout: (h) => realClock.clearTimeout(h),
    sleep: (ms, s) => realClock.sleep(ms, s),
  };
  const provider = createProvider({ db, clock });
  const core = provider.core;
  const principal = provider.tokens.tokens[TOKEN]!;
  const behavior = behaviorFor(core.behaviors.get(), 'report');
  const ids: string[] = [];
  core.db.transaction(() => {
    for (let i = 0; i < n; i++) ids.push(core.engine.create(principal, { kind: 'report', input: { i } }, behavior, { key: `seed-${i}`, trace_id: null }).job_id);
  })();
  // An hour later: every job has run to its end, each transition journalled, as in a long-lived store.
  offset = 0;
  core.db.transaction(() => core.engine.tick())();
  provider.close();
  const sample: string[] = [];
  for (let i = 0; i < 1000; i++) sample.push(ids[Math.floor((i / 1000) * ids.length)]!);
  return sample;
}

const SELF = fileURLToPath(import.meta.url);

function seedInChild(n: number, db: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = fork(SELF, ['seed', String(n), db], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let got: string[] | undefined;
    child.on('message', (m) => (got = m as string[]));
    child.once('error', reject);
    child.once('exit', (code) => (got ? resolve(got) : reject(new Error(`seeding ${n} jobs: child exited ${code}`))));
  });
}

export async function providerScale(cfg: ProviderScaleConfig): Promise<ProviderScaleSection> {
  const dir = join(TMP, 'provider-scale');
  mkdirSync(dir, { recursive: true });
  const points: ProviderScalePoint[] = [];
  for (const n of cfg.sizes) {
    const db = join(dir, `provider-${n}.db`);
    const s0 = Date.now();
    const ids = await seedInChild(n, db);
    const seedS = (Date.now() - s0) / 1000;
    const dbMb = mb(statSync(db).size + (() => { try { return statSync(`${db}-wal`).size; } catch { return 0; } })());
    const t0 = Date.now();
    const p = await startProvider(db, `provider-${n}`);
    const startS = (Date.now() - t0) / 1000;
    try {
      await waitIdle(p.pid);
      await sleep(500);
      const rssIdle = p.rss();
      await load({ url: p.url, workload: 'status', ids, connections: cfg.connections, duration: cfg.warmS });
      await waitIdle(p.pid);
      const runs = [];
      for (let r = 0; r < cfg.reps; r++) {
        runs.push(await load({ url: p.url, workload: 'status', ids, connections: cfg.connections, duration: cfg.durationS }));
        await waitIdle(p.pid);
      }
      const point: ProviderScalePoint = {
        jobs: n, seedS, startS, dbMb, rssIdleMb: mb(rssIdle), rssAfterMb: mb(p.rss()),
        rps: Math.round(median(runs.map((x) => x.rps))), p50Ms: median(runs.map((x) => x.p50Ms)), p99Ms: median(runs.map((x) => x.p99Ms)),
        non2xx: runs.reduce((a, x) => a + x.non2xx, 0),
      };
      points.push(point);
      log(`provider: ${n.toLocaleString('en')} jobs (seeded in ${seedS.toFixed(1)} s, db ${dbMb} MB, started in ${startS.toFixed(1)} s): ${point.rps} reads/s, p50 ${point.p50Ms} ms, p99 ${point.p99Ms} ms; RSS idle ${point.rssIdleMb} MB, after ${point.rssAfterMb} MB`);
    } finally {
      await p.stop();
    }
  }
  const first = points[0]!;
  const last = points.at(-1)!;
  return {
    config: cfg, points,
    latencyGrowth: Math.round((last.p50Ms / first.p50Ms) * 100) / 100,
    rpsRatio: Math.round((last.rps / first.rps) * 100) / 100,
    bytesPerJob: Math.round(((last.rssAfterMb - first.rssAfterMb) * 1024 * 1024) / (last.jobs - first.jobs)),
  };
}

if (process.argv[1] === SELF && process.argv[2] === 'seed') {
  const ids = seed(Number(process.argv[3]), process.argv[4]!);
  process.send!(ids, () => process.exit(0));
}
