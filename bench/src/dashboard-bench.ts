/**
 * `npm run bench:dashboard` (dist-bench/bench/src/dashboard-bench.js): what the live dashboard costs the provider.
 *   1. Status-read throughput of `jobproof serve --no-dashboard`, `jobproof serve` (dashboard on, nobody watching) and
 *      `jobproof serve` with a live stream open, rounds interleaved so a busy machine's drift falls on all three alike;
 *      the figure is the ratio of medians.
 *   2. A live stream following 1,000 requests/s: the delay from each entry's journal time to its arrival at the
 *      stream's reader, and the time to catch up after the load stops.
 * Flags: --quick (short runs), --rounds N, --reads N (status reads per variant and round). Writes bench/dashboard.json and bench/dashboard.md (included in
 * docs/benchmarks.md by the report writer).
 */
import autocannon, { type AutocannonResult } from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from './autocannon-run.js';
import { CLI, cpuMsOf, loadAverage, log, machine, median, ROOT, spawnUntil, stopChild, TMP, waitIdle } from './common.js';
import { seedJobs, TOKEN } from './http-targets.js';
import { createProvider, serve } from '../../src/fake-provider/index.js';

type Variant = 'off' | 'on' | 'watched';

interface Served {
  url: string;
  child: ChildProcess;
}

async function serveVariant(name: string, dashboard: boolean): Promise<Served> {
  const db = join(TMP, `dashboard-${name}.db`);
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const args = [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', db, ...(dashboard ? [] : ['--no-dashboard'])];
  const { child, match } = await spawnUntil(process.execPath, args, /listening on (http:\/\/\S+)/, { timeoutMs: 120_000 });
  return { url: match[1]!, child };
}

interface StreamReader {
  events: Array<{ seq: number; at: number; got: number; html: string }>;
  waitFor(pred: (e: { html: string; seq: number }) => boolean): Promise<number>;
  close(): void;
}

/** A live-stream reader as a browser's EventSource would be: one connection, events parsed as they come. */
async function openStream(url: string, keep: boolean): Promise<StreamReader> {
  const ctl = new AbortController();
  const res = await fetch(`${url}/_dashboard/stream`, { signal: ctl.signal });
  if (!res.ok || !res.body) throw new Error(`stream: ${res.status}`);
  const events: StreamReader['events'] = [];
  const waiters: Array<{ pred: (e: { html: string; seq: number }) => boolean; done: (t: number) => void }> = [];
  const decoder = new TextDecoder();
  let buf = '';
  void (async () => {
    const reader = res.body!.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += decoder.decode(value, { stream: true });
        for (let i = buf.indexOf('\n\n'); i !== -1; i = buf.indexOf('\n\n')) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (!block.includes('event: entry')) continue;
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          const d = JSON.parse(data) as { seq: number; at: string; html: string };
          const e = { seq: d.seq, at: Date.parse(d.at), got: Date.now(), html: keep ? d.html : '' };
          if (keep) events.push(e);
          for (const w of [...waiters]) {
            if (!w.pred(d)) continue;
            waiters.splice(waiters.indexOf(w), 1);
            w.done(e.got);
          }
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    events,
    waitFor: (pred) => new Promise((done) => waiters.push({ pred, done })),
    close: () => ctl.abort(),
  };
}

const pct = (xs: number[], p: number) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]! : NaN;
};

/**
 * CPU time of the provider process per status read (from /proc, user+system), `amount` reads per round: on a machine
 * whose load swings tenfold within a minute, CPU per request moves far less than requests per second. Throughput is
 * recorded too, for information.
 */
async function overhead(rounds: number, amount: number): Promise<Record<string, unknown>> {
  const variants: Variant[] = ['off', 'on', 'watched'];
  const served = new Map<Variant, Served>();
  const ids = new Map<Variant, string[]>();
  for (const v of variants) {
    const s = await serveVariant(v, v !== 'off');
    served.set(v, s);
    ids.set(v, (await seedJobs(s.url, 200)).ids);
  }
  const stream = await openStream(served.get('watched')!.url, false);
  const cpuUs: Record<Variant, number[]> = { off: [], on: [], watched: [] };
  const rps: Record<Variant, number[]> = { off: [], on: [], watched: [] };
  try {
    for (let r = 0; r < rounds; r++) {
      // Rotate the order each round: no variant always runs first on a warming machine.
      for (const v of variants.map((_, i) => variants[(i + r) % variants.length]!)) {
        const s = served.get(v)!;
        const pid = s.child.pid!;
        await load({ url: s.url, workload: 'status', ids: ids.get(v)!, connections: 20, amount: Math.ceil(amount / 5) }); // warm-up
        await waitIdle(pid);
        const cpu0 = cpuMsOf(pid);
        const res = await load({ url: s.url, workload: 'status', ids: ids.get(v)!, connections: 20, amount });
        // The live stream and the journal's group commit finish their share of this round's work after the last answer.
        await waitIdle(pid);
        const us = ((cpuMsOf(pid) - cpu0) * 1000) / res.requests;
        cpuUs[v].push(us);
        rps[v].push(res.rps);
        log(
          `round ${r + 1}/${rounds} ${v.padEnd(8)} ${us.toFixed(0)} µs CPU per read, ${Math.round(res.rps).toLocaleString('en')} reads/s (non-2xx ${res.non2xx})`,
        );
      }
    }
  } finally {
    stream.close();
    for (const s of served.values()) await stopChild(s.child);
  }
  const m = { off: median(cpuUs.off), on: median(cpuUs.on), watched: median(cpuUs.watched) };
  const mr = { off: median(rps.off), on: median(rps.on), watched: median(rps.watched) };
  return {
    rounds,
    amount,
    cpu_us_per_read: cpuUs,
    rps,
    median_cpu_us: m,
    median_rps: mr,
    on_vs_off: m.on / m.off,
    watched_vs_off: m.watched / m.off,
  };
}

async function follow(rate: number, duration: number): Promise<Record<string, unknown>> {
  const s = await serveVariant('follow', true);
  try {
    const { ids } = await seedJobs(s.url, 100);
    const stream = await openStream(s.url, true);
    await waitIdle(s.child.pid!);
    const from = stream.events.length;
    const result = await new Promise<AutocannonResult>((resolve, reject) => {
      let i = 0;
      autocannon(
        {
          url: s.url,
          connections: 20,
          pipelining: 1,
          duration,
          overallRate: rate,
          headers: { authorization: `Bearer ${TOKEN}` },
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/jobs/${ids[i++ % ids.length]}` }) }],
        },
        (err, r) => (err ? reject(err) : resolve(r)),
      );
    });
    // A sentinel after the load: how long until the stream has shown everything up to it.
    const marker = `bench-sentinel-${Date.now()}`;
    const sent = Date.now();
    const seen = stream.waitFor((e) => e.html.includes(marker));
    await fetch(`${s.url}/v1/jobs/${ids[0]}`, { headers: { authorization: `Bearer ${TOKEN}`, 'x-trace-id': marker } });
    const caughtUp = (await seen) - sent;
    stream.close();
    const during = stream.events.slice(from);
    const lags = during.map((e) => e.got - e.at);
    const requests = result['2xx'] + result.non2xx;
    return {
      target_rate: rate,
      duration_s: result.duration,
      requests,
      achieved_rps: requests / result.duration,
      entries_streamed: during.length,
      lag_ms: { p50: pct(lags, 50), p99: pct(lags, 99), max: Math.max(...lags) },
      catch_up_ms: caughtUp,
    };
  } finally {
    await stopChild(s.child);
  }
}

/**
 * The stream alone, without the provider's HTTP cost: journal entries appended at `rate` per second (batches every
 * 10 ms) into a provider served over loopback in this process, one live stream reading them.
 */
async function followJournal(rate: number, seconds: number): Promise<Record<string, unknown>> {
  const provider = createProvider({ dashboard: true });
  const server = await serve(provider, { port: 0 });
  try {
    const stream = await openStream(server.url, true);
    const start = Date.now();
    let appended = 0;
    const entry = (i: number) => ({
      type: 'request' as const,
      at: new Date().toISOString(),
      received_at: new Date().toISOString(),
      request_id: `req_bench_${i}`,
      method: 'GET',
      path: '/v1/jobs/job_bench',
      route: 'status',
      tenant: 'acme',
      subject: 'agent-1',
      idempotency_key: null,
      trace_id: `tr_${i}`,
      worker_id: 'worker-1',
      fingerprint: null,
      effect: 'read' as const,
      job_id: 'job_bench',
      status: 200,
      code: null,
      delivery: 'delivered' as const,
      fault: null,
      job_state: 'running' as const,
      retry_after: null,
      client_ref: null,
    });
    await new Promise<void>((done) => {
      const tick = setInterval(() => {
        const due = Math.min(rate * seconds, Math.floor(((Date.now() - start) / 1000) * rate));
        while (appended < due) provider.core.journal.append(entry(appended++));
        if (appended >= rate * seconds) {
          clearInterval(tick);
          done();
        }
      }, 10);
    });
    const last = provider.journal.lastSeq();
    const ended = Date.now();
    const got = await stream.waitFor((e) => e.seq === last);
    stream.close();
    const lags = stream.events.map((e) => e.got - e.at);
    return {
      target_rate: rate,
      seconds,
      appended,
      achieved_rate: appended / ((ended - start) / 1000),
      entries_streamed: stream.events.length,
      lag_ms: { p50: pct(lags, 50), p99: pct(lags, 99), max: Math.max(...lags) },
      catch_up_ms: got - ended,
    };
  } finally {
    await server.close();
    provider.close();
  }
}

/** Journal pages at 100,000 entries: the newest page, a filter that matches nothing (reads its whole scan budget), grouped, jobs. */
async function pageTimes(n: number): Promise<Record<string, number>> {
  const provider = createProvider({ dashboard: true });
  try {
    for (let i = 0; i < n; i++) {
      provider.core.journal.append({
        type: 'request',
        at: new Date().toISOString(),
        received_at: new Date().toISOString(),
        request_id: `req_${i}`,
        method: 'GET',
        path: `/v1/jobs/job_${i % 500}`,
        route: 'status',
        tenant: 'acme',
        subject: 'agent-1',
        idempotency_key: null,
        trace_id: `tr_${i % 977}`,
        worker_id: `worker-${i % 4}`,
        fingerprint: null,
        effect: 'read',
        job_id: `job_${i % 500}`,
        status: 200,
        code: null,
        delivery: 'delivered',
        fault: null,
        job_state: 'running',
        retry_after: null,
        client_ref: null,
      });
    }
    provider.journal.lastSeq(); // flush
    const time = async (path: string) => {
      const ms: number[] = [];
      for (let r = 0; r < 3; r++) {
        const t = performance.now();
        const res = await provider.app.request(`http://localhost${path}`);
        await res.text();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        ms.push(performance.now() - t);
      }
      return Math.round(median(ms));
    };
    return {
      entries: n,
      newest_page_ms: await time('/_dashboard'),
      filtered_none_ms: await time('/_dashboard?trace=no-such-trace'),
      grouped_by_job_ms: await time('/_dashboard?group=job'),
      old_page_ms: await time('/_dashboard?before=500'),
      jobs_page_ms: await time('/_dashboard/jobs'),
    };
  } finally {
    provider.close();
  }
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

type Figures = Record<string, number> & { lag_ms: Record<string, number> };
type Overhead = Record<string, number> & {
  cpu_us_per_read: Record<Variant, number[]>;
  median_cpu_us: Record<Variant, number>;
  median_rps: Record<Variant, number>;
};

function markdown(r: {
  meta: Record<string, unknown>;
  overhead: Record<string, unknown>;
  follow: Record<string, unknown>;
  followJournal: Record<string, unknown>;
  pages: Record<string, number>;
}): string {
  const o = r.overhead as Overhead;
  const f = r.follow as Figures;
  const j = r.followJournal as Figures;
  const n = (x: number) => Math.round(x).toLocaleString('en');
  return [
    '## Dashboard (issue 14; `npm run bench:dashboard`)',
    '',
    `Run of ${String(r.meta.date).slice(0, 10)}; load average ${(r.meta.load_before as number[]).join(' / ')} before, ${(r.meta.load_after as number[]).join(' / ')} after — a shared, busy machine, so only ratios of interleaved rounds are read.`,
    '',
    `Status reads (20 connections, ${o.rounds} interleaved rounds of ${n(o.amount)} reads) against three \`jobproof serve\` processes. The figure is CPU time of the provider process per read (user + system, from /proc, until the process is idle again), which a busy machine disturbs far less than reads/s:`,
    '',
    '| provider | CPU µs per read (median) | rounds | vs --no-dashboard | reads/s (median, for information) | target |',
    '| --- | --- | --- | --- | --- | --- |',
    `| --no-dashboard | ${n(o.median_cpu_us.off)} | ${o.cpu_us_per_read.off.map(n).join(', ')} | 1.00× | ${n(o.median_rps.off)} | |`,
    `| dashboard on, nobody watching | ${n(o.median_cpu_us.on)} | ${o.cpu_us_per_read.on.map(n).join(', ')} | ${o.on_vs_off.toFixed(3)}× | ${n(o.median_rps.on)} | adds < 5 % (≤ 1.05×): **${o.on_vs_off <= 1.05 ? 'met' : 'not met'}** |`,
    `| dashboard on, a live stream open | ${n(o.median_cpu_us.watched)} | ${o.cpu_us_per_read.watched.map(n).join(', ')} | ${o.watched_vs_off.toFixed(3)}× | ${n(o.median_rps.watched)} | (for information: every entry streamed, headers and bodies recorded) |`,
    '',
    `Pages at ${n(r.pages.entries)} journal entries (in-process, median of 3): newest page ${r.pages.newest_page_ms} ms, an old page ${r.pages.old_page_ms} ms, grouped by job ${r.pages.grouped_by_job_ms} ms, a filter matching nothing ${r.pages.filtered_none_ms} ms (it reads at most 20,000 entries, then offers "older"), jobs & tasks (timelines from the newest 20,000 entries) ${r.pages.jobs_page_ms} ms.`,
    '',
    `The stream alone: ${n(j.appended)} journal entries appended at ${n(j.target_rate)}/s for ${j.seconds} s (achieved ${n(j.achieved_rate)}/s) into a provider served over loopback, one live stream reading: ${n(j.entries_streamed)} entries streamed; delay p50 ${j.lag_ms.p50} ms, p99 ${j.lag_ms.p99} ms, max ${j.lag_ms.max} ms; the last entry arrived ${j.catch_up_ms} ms after the last append — **${j.entries_streamed >= j.appended && j.lag_ms.p99 < 1000 && j.catch_up_ms < 1000 ? 'keeps up' : 'falls behind'}**.`,
    '',
    `Through HTTP: a live stream following ${n(f.target_rate)} requests/s for ${f.duration_s} s (status reads, 20 connections, rate-limited): ${n(f.achieved_rps)} requests/s achieved, ${n(f.entries_streamed)} entries streamed; delay from an entry's journal time to its arrival at the reader p50 ${f.lag_ms.p50} ms, p99 ${f.lag_ms.p99} ms, max ${f.lag_ms.max} ms; after the load stopped, a sentinel request was on the stream ${f.catch_up_ms} ms later — **${f.lag_ms.p99 < 1000 && f.catch_up_ms < 1000 ? 'keeps up' : 'falls behind'}** (rule: p99 delay and catch-up under 1 s).`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const rounds = Number(flag('rounds') ?? (quick ? 1 : 5));
  const amount = Number(flag('reads') ?? (quick ? 2_000 : 10_000));
  mkdirSync(TMP, { recursive: true });
  const meta = { date: new Date().toISOString(), machine: machine(), load_before: loadAverage(), load_after: [] as number[] };
  log(`dashboard overhead: ${rounds} rounds × ${amount} reads per variant`);
  const o = await overhead(rounds, amount);
  log(`follow: 1,000 requests/s for ${quick ? 3 : 10} s with a live stream open`);
  const f = await follow(1000, quick ? 3 : 10);
  log(`follow: 1,000 journal entries/s appended for ${quick ? 3 : 10} s, one live stream`);
  const j = await followJournal(1000, quick ? 3 : 10);
  log('pages at 100,000 journal entries');
  const pages = await pageTimes(100_000);
  meta.load_after = loadAverage();
  const out = { meta, overhead: o, follow: f, followJournal: j, pages };
  const dir = quick ? TMP : join(ROOT, 'bench');
  writeFileSync(join(dir, 'dashboard.json'), JSON.stringify(out, null, 2) + '\n');
  writeFileSync(join(dir, 'dashboard.md'), markdown(out));
  log(`wrote ${join(dir, 'dashboard.json')} and dashboard.md`);
  process.stdout.write(markdown(out));
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
