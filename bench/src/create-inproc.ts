import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock, TimerHandle } from '../../src/lib/clock.js';
import { createProvider } from '../../src/fake-provider/provider.js';
import { loadAverage, TMP } from './common.js';

/**
 * CPU per durable create without sockets (issue 13, for iterating): the provider's app on a file store, `--n`
 * creates in groups of `--group` (one event-loop turn, one group commit each), one millisecond of a hand-moved
 * clock per group, so job steps fall due as they do under load and are applied by the requests' catch-up ticks.
 * After the last create the clock moves past every job's end and one more request finishes them: the figure
 * includes each job's whole life cycle.
 *
 *   node [--cpu-prof] dist-bench/bench/src/create-inproc.js [--n 20000] [--group 10]
 */
function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

let now = Date.parse('2026-01-01T00:00:00.000Z');
// No timers: every step is applied by a request's catch-up tick, as on a busy server.
const clock: Clock = {
  now: () => now,
  setTimeout: (): TimerHandle => ({ id: 0 }),
  clearTimeout: () => undefined,
  sleep: () => Promise.resolve(),
};

const n = arg('--n', 20000);
const group = arg('--group', 10);
const dir = join(TMP, `create-inproc-${process.pid}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const provider = createProvider({ db: join(dir, 'p.db'), clock });
const body = JSON.stringify({ kind: 'report', input: {} });
let key = 0;
const create = () =>
  provider.app.fetch(
    new Request('http://jobproof.test/v1/jobs', {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json', 'idempotency-key': `k-${key++}` },
      body,
    }),
  );

async function run(count: number): Promise<void> {
  for (let i = 0; i < count; i += group) {
    now += 1;
    const answers = await Promise.all(Array.from({ length: Math.min(group, count - i) }, create));
    for (const a of answers) if (a.status !== 202) throw new Error(`create answered ${a.status}: ${await a.text()}`);
    await provider.journal.committed();
  }
}

await run(2000);
now += 5000;
await run(1);
const cpu0 = process.cpuUsage();
await run(n);
now += 5000;
await run(1);
const cpu = process.cpuUsage(cpu0);
console.log(
  `${n} creates: ${Math.round((cpu.user + cpu.system) / n)} µs CPU/create incl. life cycle (user ${Math.round(cpu.user / n)}, sys ${Math.round(cpu.system / n)}); load ${loadAverage().join(' ')}`,
);
provider.close();
rmSync(dir, { recursive: true, force: true });
