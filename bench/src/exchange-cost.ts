/**
 * CPU per in-process exchange (issue 22, transport): one reference-client `call` through `provider.fetch` to the
 * provider's app and back — on each of `providers` fresh providers a create, then `reads` status reads of it (a
 * schedule's few dozen requests; only the reads are timed). Run the same file against two builds to compare:
 *   node dist-bench/bench/src/exchange-cost.js [reads] [providers] [rounds]
 * Prints the median over rounds of CPU microseconds per status read.
 */
import { createProvider, IN_PROCESS_BASE } from '../../src/fake-provider/index.js';
import { VirtualClock } from '../../src/lib/clock.js';
import { call, type HttpOptions } from '../../src/reference-client/http.js';

const reads = Number(process.argv[2] ?? 50);
const providers = Number(process.argv[3] ?? 40);
const rounds = Number(process.argv[4] ?? 7);

/** CPU microseconds spent in the reads of one provider. */
async function onProvider(): Promise<number> {
  const clock = new VirtualClock();
  const provider = createProvider({ db: ':memory:', clock, shortLived: true });
  const sockets = new AbortController();
  const fetch: typeof globalThis.fetch = (input, init) => provider.fetch(input, { ...init, signal: init?.signal ?? sockets.signal });
  const opts: HttpOptions = { fetch, clock, providerUrl: IN_PROCESS_BASE, token: 'dev-token', workerId: 'w1', timeoutMs: 30_000 };
  const created = await call(opts, {
    method: 'POST',
    path: '/v1/jobs',
    body: { kind: 'render', input: { n: 1 } },
    idempotencyKey: 'k1',
    traceId: 't',
  });
  const id = created.kind === 'answer' ? (created.json as { job_id: string }).job_id : '';
  if (!id) throw new Error(`create failed: ${JSON.stringify(created)}`);
  const t = process.cpuUsage();
  for (let i = 0; i < reads; i++) {
    const o = await call(opts, { method: 'GET', path: `/v1/jobs/${id}`, traceId: `t${i}` });
    if (o.kind !== 'answer' || o.status !== 200) throw new Error(`read failed: ${JSON.stringify(o)}`);
  }
  const u = process.cpuUsage(t);
  provider.close();
  return u.user + u.system;
}

async function round(): Promise<number> {
  let cpu = 0;
  for (let p = 0; p < providers; p++) cpu += await onProvider();
  return cpu / (reads * providers);
}

const per: number[] = [];
for (let r = 0; r < rounds; r++) per.push(await round());
per.sort((a, b) => a - b);
console.log(
  `exchange: ${per[Math.floor(per.length / 2)]!.toFixed(1)} µs CPU per status read (median of ${rounds} rounds of ${providers} providers × ${reads} reads)`,
);
