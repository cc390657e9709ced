import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { load, type LoadResult, type Workload } from './autocannon-run.js';
import { loadAverage, log, mb, median, sleep, TMP, waitIdle } from './common.js';
import { javaVersion, seedJobs, startBareHono, startMockttp, startProvider, startWireMock, type HttpTarget } from './http-targets.js';
import type { Stub } from './targets/stub.js';

export interface HttpConfig {
  rounds: number;
  durationS: number;
  warmS: number;
  /** WireMock's JIT warm-up before the first measured round. */
  jitWarmS: number;
  connections: number;
  soakRequests: number;
  soakTargets: string[];
}

/**
 * `jobproof-memory` is the provider on `:memory:`: WireMock's journal lives in memory, so the creates comparison is
 * made against it (decision 030). It takes creates only in the rounds (its store holds none of the seeded ids).
 */
export const TARGET_NAMES = ['jobproof', 'jobproof-memory', 'bare-hono', 'mockttp', 'wiremock-journal', 'wiremock-nojournal'] as const;
export type TargetName = (typeof TARGET_NAMES)[number];
/** Targets of the long memory run: also the provider on ':memory:' with a bounded journal. */
export const SOAK_NAMES = TARGET_NAMES;
/** The bounded journal of the ':memory:' soak (`serve --journal-max`). */
export const SOAK_JOURNAL_MAX = 100_000;

export interface SoakResult {
  target: string;
  requests: number;
  rssStartMb: number;
  rssMidMb: number;
  rssEndMb: number;
  /** RSS after each tenth of the requests; for the provider also V8's heap after its last full GC (--trace-gc). */
  series: { requests: number; rssMb: number; heapAfterGcMb?: number | null }[];
  /** Provider on a file: journal entries at the end and the bytes their table takes (SQLite dbstat). */
  journal?: { entries: number; bytes: number; bytesPerEntry: number };
  rps: number;
  non2xx: number;
  errors: number;
}

export interface HttpSection {
  config: HttpConfig;
  java: string | null;
  notMeasured: Record<string, string>;
  /** Per round, per target, per workload. */
  rounds: Record<string, Partial<Record<Workload, LoadResult>>>[];
  /** Medians over rounds. */
  median: Record<
    string,
    Partial<Record<Workload, { rps: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number; cpuUs?: number }>>
  >;
  /** jobproof status reads ÷ the other target's, taken within each round, median over rounds. */
  statusRatio: Record<string, number>;
  /** Creates on `:memory:` ÷ WireMock-journal's, within each round, median over rounds (decision 030). */
  memoryCreateRatio?: number;
  createRatio: Record<string, number>;
  rssAfterRoundsMb: Record<string, number>;
  soak: SoakResult[];
  loadavg: { before: number[]; after: number[] };
}

type Starter = (stub: Stub) => Promise<HttpTarget>;

const STARTERS: Record<Exclude<TargetName, 'jobproof'>, Starter> = {
  'jobproof-memory': () => startProvider(':memory:', 'jobproof-memory'),
  'bare-hono': startBareHono,
  mockttp: startMockttp,
  'wiremock-journal': (s) => startWireMock(s, true),
  'wiremock-nojournal': (s) => startWireMock(s, false),
};

function summary(r: LoadResult): string {
  return `${Math.round(r.rps)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, server CPU ${r.cpuUs ?? '?'} µs/req${r.non2xx || r.errors ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`;
}

export async function httpBench(cfg: HttpConfig): Promise<HttpSection> {
  const before = loadAverage();
  const notMeasured: Record<string, string> = {};
  let java: string | null = null;
  try {
    java = await javaVersion();
  } catch (e) {
    notMeasured['wiremock-journal'] = notMeasured['wiremock-nojournal'] = (e as Error).message;
  }
  const dir = join(TMP, 'http');
  rmSync(dir, { recursive: true, force: true });
  const provider = await startProvider(join(dir, 'provider.db'));
  const targets: HttpTarget[] = [provider];
  const { ids, stub } = await seedJobs(provider.url, 100);
  log(
    `http: provider at ${provider.url} (pid ${provider.pid}), 100 jobs seeded; status body ${stub.status.body.length} B, create body ${stub.create.body.length} B`,
  );
  const section: HttpSection = {
    config: cfg,
    java,
    notMeasured,
    rounds: [],
    median: {},
    statusRatio: {},
    createRatio: {},
    rssAfterRoundsMb: {},
    soak: [],
    loadavg: { before, after: [] },
  };
  try {
    for (const [name, start] of Object.entries(STARTERS)) {
      if (notMeasured[name]) continue;
      try {
        const t = await start(stub);
        targets.push(t);
        log(`http: ${name} at ${t.url} (pid ${t.pid})`);
      } catch (e) {
        notMeasured[name] = `could not start: ${(e as Error).message.split('\n')[0]}`;
        log(`http: ${name} NOT MEASURED: ${notMeasured[name]}`);
      }
    }
    // Warm-up: every target takes reads and creates before anything is measured; WireMock gets a longer JIT warm-up.
    for (const t of targets) {
      const s = t.name.startsWith('wiremock') ? cfg.jitWarmS : cfg.warmS;
      if (t.name !== 'jobproof-memory') await load({ url: t.url, workload: 'status', ids, connections: cfg.connections, duration: s });
      await load({ url: t.url, workload: 'create', ids, connections: cfg.connections, duration: Math.max(1, Math.round(s / 2)) });
      await waitIdle(t.pid);
      log(`http: warmed ${t.name} (${s} s)`);
    }
    for (let r = 0; r < cfg.rounds; r++) {
      const round: HttpSection['rounds'][number] = {};
      // Rotate the order each round so that drift on a shared machine does not always favour the same target.
      const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
      for (const workload of ['status', 'create'] as const) {
        for (const t of order) {
          if (workload === 'status' && t.name === 'jobproof-memory') continue;
          const res = await load({ url: t.url, workload, ids, connections: cfg.connections, duration: cfg.durationS, pid: t.pid });
          round[t.name] ??= {};
          round[t.name][workload] = res;
          log(`http: round ${r + 1}/${cfg.rounds} ${workload.padEnd(6)} ${t.name.padEnd(18)} ${summary(res)}`);
          await waitIdle(t.pid);
        }
      }
      section.rounds.push(round);
    }
    for (const t of targets) {
      section.rssAfterRoundsMb[t.name] = mb(t.rss());
      const m: HttpSection['median'][string] = {};
      for (const w of ['status', 'create'] as const) {
        const rs = section.rounds.map((x) => x[t.name]?.[w]).filter((x): x is LoadResult => !!x);
        if (!rs.length) continue;
        m[w] = {
          rps: Math.round(median(rs.map((x) => x.rps))),
          p50Ms: median(rs.map((x) => x.p50Ms)),
          p99Ms: median(rs.map((x) => x.p99Ms)),
          non2xx: rs.reduce((a, x) => a + x.non2xx, 0),
          errors: rs.reduce((a, x) => a + x.errors, 0),
          cpuUs: median(rs.map((x) => x.cpuUs ?? NaN)),
        };
      }
      section.median[t.name] = m;
      if (t.name !== 'jobproof') {
        const ratio = (w: Workload) =>
          Math.round(median(section.rounds.map((x) => (x.jobproof?.[w]?.rps ?? NaN) / (x[t.name]?.[w]?.rps ?? NaN))) * 1000) / 1000;
        section.statusRatio[t.name] = ratio('status');
        section.createRatio[t.name] = ratio('create');
      }
    }
    if (section.rounds.some((x) => x['jobproof-memory']?.create && x['wiremock-journal']?.create))
      section.memoryCreateRatio =
        Math.round(
          median(section.rounds.map((x) => (x['jobproof-memory']?.create?.rps ?? NaN) / (x['wiremock-journal']?.create?.rps ?? NaN))) *
            1000,
        ) / 1000;
  } finally {
    for (const t of targets) await t.stop();
  }
  // Memory over a long run: a fresh process per target, RSS after each tenth of the requests.
  for (const name of cfg.soakTargets) {
    if (notMeasured[name]) continue;
    section.soak.push(await soak(name, cfg, ids, stub, join(dir, `soak-${name}.db`)));
  }
  section.loadavg.after = loadAverage();
  return section;
}

/** V8's heap after its last full GC, from the provider's --trace-gc output; null before the first. */
function heapAfterGc(tail: string | undefined): number | null {
  const all = [...(tail ?? '').matchAll(/Mark-Compact[^\n]*? -> ([\d.]+) \(/g)];
  return all.length ? Number(all.at(-1)![1]) : null;
}

/** Entries in a provider store's journal and the bytes of its table (pages, SQLite's dbstat), read after it stopped. */
function journalSize(db: string): SoakResult['journal'] {
  const d = new Database(db, { readonly: true });
  try {
    const entries = (d.prepare('SELECT COUNT(*) AS n FROM journal').get() as { n: number }).n;
    const bytes = (d.prepare(`SELECT SUM(pgsize) AS b FROM dbstat WHERE name = 'journal'`).get() as { b: number }).b;
    return { entries, bytes, bytesPerEntry: entries ? Math.round(bytes / entries) : 0 };
  } finally {
    d.close();
  }
}

function startSoakTarget(name: string, stub: Stub, db: string): Promise<HttpTarget> {
  // --trace-gc: the heap left after each full GC tells retention from garbage V8 has not yet collected.
  if (name === 'jobproof') return startProvider(db, name, [], ['--trace-gc']);
  if (name === 'jobproof-memory') return startProvider(':memory:', name, ['--journal-max', String(SOAK_JOURNAL_MAX)], ['--trace-gc']);
  return STARTERS[name as Exclude<TargetName, 'jobproof' | 'jobproof-memory'>](stub);
}

async function soak(name: string, cfg: HttpConfig, ids: readonly string[], stub: Stub, db: string): Promise<SoakResult> {
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const t = await startSoakTarget(name, stub, db);
  const isProvider = name.startsWith('jobproof');
  let result: SoakResult;
  try {
    // The provider's store needs jobs to read: fresh process, fresh store, same 100 jobs' worth of reads.
    const readIds = isProvider ? (await seedJobs(t.url, 100)).ids : ids;
    await load({
      url: t.url,
      workload: 'status',
      ids: readIds,
      connections: cfg.connections,
      duration: name.startsWith('wiremock') ? cfg.jitWarmS : cfg.warmS,
    });
    await waitIdle(t.pid);
    await sleep(500);
    const start = t.rss();
    const chunk = Math.max(1, Math.round(cfg.soakRequests / 10));
    const series: SoakResult['series'] = [];
    let done = 0;
    let non2xx = 0;
    let errors = 0;
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) {
      const r = await load({ url: t.url, workload: 'status', ids: readIds, connections: cfg.connections, amount: chunk });
      done += r.requests;
      non2xx += r.non2xx;
      errors += r.errors;
      series.push({ requests: done, rssMb: mb(t.rss()), ...(isProvider ? { heapAfterGcMb: heapAfterGc(t.tail?.()) } : {}) });
      const last = series.at(-1)!;
      log(
        `soak: ${name} ${done.toLocaleString('en')} requests, RSS ${last.rssMb} MB${isProvider ? `, heap after last full GC ${last.heapAfterGcMb ?? '—'} MB` : ''}`,
      );
    }
    const rps = done / ((Date.now() - t0) / 1000);
    result = {
      target: name,
      requests: done,
      rssStartMb: mb(start),
      rssMidMb: series[4]!.rssMb,
      rssEndMb: series[9]!.rssMb,
      series,
      rps: Math.round(rps),
      non2xx,
      errors,
    };
  } finally {
    await t.stop();
  }
  if (name === 'jobproof') {
    const j = journalSize(db);
    result.journal = j;
    log(`soak: journal ${j?.entries.toLocaleString('en')} entries, ${mb(j?.bytes ?? 0)} MB, ${j?.bytesPerEntry} bytes/entry`);
  }
  return result;
}
