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
import { markdown } from './dashboard-report.js';
import { openStream, pct } from './dashboard-stream.js';

import type { Variant } from './dashboard-report.js';

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
