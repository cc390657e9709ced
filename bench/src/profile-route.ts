/**
 * Server CPU per request of the provider's hot routes, with an optional CPU profile summary — for iterating on the
 * provider's speed (not part of `npm run bench`). Build first (`npm run build && npx tsc -p tsconfig.bench.json`), then:
 *
 *   node dist-bench/bench/src/profile-route.js [--reads] [--creates] [--seconds 8] [--rounds 2] [--prof] [--top 40]
 *
 * Starts `serve --db <tmp file>` as a child (with `--cpu-prof` when --prof), seeds 100 jobs, runs autocannon
 * (50 connections) per workload and round, and prints reads/s and server CPU µs per request (user+system time of
 * the server process, /proc), with the load average. With --prof, prints the functions by self and inclusive time (cpu-profile-summary.ts).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { load, type Workload } from './autocannon-run.js';
import { loadAverage, TMP, waitIdle } from './common.js';
import { summariseProfile } from './cpu-profile-summary.js';
import { seedJobs, startProvider } from './http-targets.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

async function main(): Promise<void> {
  const workloads: Workload[] = [];
  if (process.argv.includes('--reads') || !process.argv.includes('--creates')) workloads.push('status');
  if (process.argv.includes('--creates')) workloads.push('create');
  const seconds = arg('--seconds', 8);
  const rounds = arg('--rounds', 2);
  const prof = process.argv.includes('--prof');
  const dir = join(TMP, `profile-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const target = await startProvider(join(dir, 'jobs.db'), 'jobproof', [], prof ? ['--cpu-prof', '--cpu-prof-dir', dir] : []);
  try {
    const { ids } = await seedJobs(target.url, 100);
    await waitIdle(target.pid);
    // A short warm-up, so the JIT has settled before the measured rounds.
    await load({ url: target.url, workload: 'status', ids, duration: 2, pid: target.pid });
    for (let r = 0; r < rounds; r++) {
      for (const w of workloads) {
        await waitIdle(target.pid);
        const res = await load({ url: target.url, workload: w, ids, duration: seconds, pid: target.pid });
        console.log(
          `${w.padEnd(6)} round ${r + 1}: ${Math.round(res.rps)} req/s, server CPU ${res.cpuUs} µs/req, p50 ${res.p50Ms} ms, ` +
            `p99 ${res.p99Ms} ms, non-2xx ${res.non2xx}, errors ${res.errors}; load ${loadAverage().join(' ')}`,
        );
      }
    }
  } finally {
    await target.stop();
  }
  if (prof) {
    const f = readdirSync(dir).find((n) => n.endsWith('.cpuprofile'));
    if (f) {
      console.log(`\nprofile: ${join(dir, f)}`);
      summariseProfile(readFileSync(join(dir, f), 'utf8'), arg('--top', 40));
    } else console.log('no profile written');
  } else rmSync(dir, { recursive: true, force: true });
}

await main();
