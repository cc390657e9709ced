import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { load } from './autocannon-run.js';
import { summariseProfile } from './cpu-profile-summary.js';
import { CLI, cpuMsOf, loadAverage, sleep, spawnUntil, stopChild, TMP } from './common.js';

/**
 * Server CPU per durable create, for iterating on the create path (issue 13): the provider from the CLI on a file
 * store, autocannon creating with a fresh Idempotency-Key per request. Reports µs per create during the load, and
 * with the jobs' later lifecycle steps (measured again once every job created has finished). With `--cpu-prof`
 * the provider runs under `node --cpu-prof` and the top functions by self and inclusive time are printed.
 *
 *   node dist-bench/bench/src/profile-create.js [--seconds 8] [--connections 50] [--memory] [--cpu-prof [--keep-prof FILE]] [--cli dist/cli/main.js]
 *
 * `--cli` runs another build's CLI (a copy of an earlier dist/ inside the repository), for before/after pairs.
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const seconds = arg('--seconds', 8);
  const connections = arg('--connections', 50);
  const prof = process.argv.includes('--cpu-prof');
  // `--memory`: the provider on ':memory:' (the like-for-like WireMock comparison, decision 030).
  const memory = process.argv.includes('--memory');
  const dir = join(TMP, `profile-create-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const flags = prof ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
  const ci = process.argv.indexOf('--cli');
  const cli = ci >= 0 ? process.argv[ci + 1]! : CLI;
  const { child, match } = await spawnUntil(
    process.execPath,
    [...flags, cli, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', memory ? ':memory:' : join(dir, 'provider.db')],
    /listening on (http:\/\/\S+)/,
  );
  const target = { url: match[1]!, pid: child.pid!, stop: () => stopChild(child) };
  try {
    await load({ url: target.url, workload: 'create', ids: [], connections, duration: 2, pid: target.pid });
    await sleep(2500);
    const cpu0 = cpuMsOf(target.pid);
    const r = await load({ url: target.url, workload: 'create', ids: [], connections, duration: seconds, pid: target.pid });
    // The jobs created last finish 2 s (the default duration) after the load: their steps belong to the creates.
    await sleep(2500);
    const withLifecycle = ((cpuMsOf(target.pid) - cpu0) * 1000) / r.requests;
    console.log(
      `creates: ${r.requests} in ${r.durationS} s = ${Math.round(r.rps)}/s (non-2xx ${r.non2xx}, errors ${r.errors}), p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms`,
    );
    console.log(`server CPU: ${r.cpuUs} µs/create during the load, ${Math.round(withLifecycle)} µs/create with every job finished`);
    console.log(`load average: ${loadAverage().join(' ')}`);
  } finally {
    await target.stop();
  }
  if (prof) {
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file) summariseProfile(readFileSync(join(dir, file), 'utf8'), arg('--top', 45));
    const keep = process.argv.indexOf('--keep-prof');
    if (file && keep >= 0) copyFileSync(join(dir, file), process.argv[keep + 1]!);
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
