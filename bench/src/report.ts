import { existingStoreSection } from './store-backends-report.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ClientScaleSection } from './client-scale.js';
import { ROOT } from './common.js';
import type { ConformanceSection } from './conformance-speed.js';
import type { HttpSection } from './http-bench.js';
import type { ProviderScaleSection } from './provider-scale.js';

export interface Meta {
  date: string;
  quick: boolean;
  machine: { cores: number; cpu: string; node: string; platform: string; memGb: number };
  java: string | null;
  versions: Record<string, string>;
  git: { commit: string; dirtyFiles: number };
  loadavg: { start: number[]; end: number[] };
  wallS: number;
  argv: string[];
  /** Set when a stopped run was finished with --resume: when, on what load and code, the remaining sections ran. */
  resumedAt?: { date: string; loadavg: number[]; git: { commit: string; dirtyFiles: number } };
}

export interface Results {
  meta: Meta;
  http?: HttpSection;
  conformance?: ConformanceSection;
  client?: ClientScaleSection;
  provider?: ProviderScaleSection;
  targets: TargetRow[];
}

export interface TargetRow {
  target: string;
  measured: string;
  met: boolean | null;
  note?: string;
}

/** Flat: RSS at the end within +10 % of RSS after the first tenth of the run, and no tenth above +25 % of it. */
const FLAT_SOAK_END = 0.1;
const FLAT_SOAK_PEAK = 0.25;
const FLAT_CLIENT = 1.5;
const FLAT_LATENCY = 1.25;

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
const num = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : 'n/a');

export function evaluate(r: Omit<Results, 'targets'>): TargetRow[] {
  const rows: TargetRow[] = [];
  const h = r.http;
  const ratio = (name: string, need: number, label: string, show: (x: number) => string) => {
    if (!h) return rows.push({ target: label, measured: 'not run (--only)', met: null });
    if (h.notMeasured[name]) return rows.push({ target: label, measured: `not measured: ${h.notMeasured[name]}`, met: null });
    const x = h.statusRatio[name];
    if (x === undefined || !Number.isFinite(x)) return rows.push({ target: label, measured: 'no figure', met: null });
    const jp = h.median.jobproof?.status?.rps ?? NaN;
    const other = h.median[name]?.status?.rps ?? NaN;
    rows.push({ target: label, measured: `${show(x)} (${num(jp)} vs ${num(other)} reads/s, medians)`, met: x >= need });
  };
  ratio('wiremock-journal', 1, 'journalled status reads ≥ WireMock (journal on)', (x) => `${x.toFixed(2)}×`);
  ratio('mockttp', 3, 'journalled status reads ≥ 3× mockttp', (x) => `${x.toFixed(2)}×`);
  ratio('bare-hono', 0.75, 'journalled status reads ≥ 75 % of bare Hono', pct);
  if (h) {
    const c = h.median.jobproof?.create?.rps ?? NaN;
    rows.push({ target: 'creates (durable SQLite) ≥ 5,000/s', measured: `${num(c)}/s (p50 ${h.median.jobproof?.create?.p50Ms} ms, p99 ${h.median.jobproof?.create?.p99Ms} ms)`, met: c >= 5000 });
    const s = h.soak.find((x) => x.target === 'jobproof');
    if (s) {
      const warm = s.series[0]!.rssMb;
      const peak = Math.max(...s.series.map((x) => x.rssMb));
      const flat = s.rssEndMb <= warm * (1 + FLAT_SOAK_END) && peak <= warm * (1 + FLAT_SOAK_PEAK);
      const wm = h.soak.find((x) => x.target === 'wiremock-journal');
      rows.push({
        target: 'provider memory flat over 1M requests',
        measured: `RSS ${s.rssStartMb} MB warmed; ${warm} MB after the first tenth, ${s.rssMidMb} MB midway, peak ${peak} MB, ${s.rssEndMb} MB at the end of ${num(s.requests)} requests${wm ? ` (WireMock, journal on: ${wm.rssStartMb} → ${wm.rssEndMb} MB)` : ''}`,
        met: s.requests >= 1_000_000 ? flat : null,
        note: s.requests >= 1_000_000 ? undefined : `only ${num(s.requests)} requests (--requests); not evaluated`,
      });
    } else rows.push({ target: 'provider memory flat over 1M requests', measured: 'not run', met: null });
  } else {
    rows.push({ target: 'creates (durable SQLite) ≥ 5,000/s', measured: 'not run (--only)', met: null });
    rows.push({ target: 'provider memory flat over 1M requests', measured: 'not run (--only)', met: null });
  }
  const c = r.conformance;
  rows.push(c ? { target: '≥ 50 in-process fault schedules per second', measured: `${c.schedulesPerSecond}/s (median of ${c.property.length} property runs${c.property.some((p) => p.escaped || p.crashed) ? '; some runs had errors escaping, see section 2' : ''})`, met: c.schedulesPerSecond >= 50 } : { target: '≥ 50 in-process fault schedules per second', measured: 'not run (--only)', met: null });
  if (c) {
    const full = c.config.scenarios === 'all';
    const allPassed = c.catalog.every((x) => x.exitCode === 0);
    rows.push({
      target: 'catalog through the process runner < 60 s',
      measured: `${c.catalogWallS.toFixed(1)} s (median of ${c.catalog.length}; ${c.scenarios} scenarios${allPassed ? ', all passed' : ', NOT all passed'})`,
      met: full ? c.catalogWallS < 60 : null,
      note: full ? undefined : 'subset of the catalog (quick pass); not evaluated',
    });
  } else rows.push({ target: 'catalog through the process runner < 60 s', measured: 'not run (--only)', met: null });
  const cl = r.client;
  if (cl) {
    const a = cl.points[0]!;
    const b = cl.points.at(-1)!;
    rows.push({
      target: 'reference client per-poll cost flat from 1,000 to 100,000 open operations',
      measured: `${a.decisionCpuUs} → ${b.decisionCpuUs} µs CPU per decision (${cl.growth}×) from ${num(a.open)} to ${num(b.open)}`,
      met: b.open >= 100_000 ? cl.growth <= FLAT_CLIENT : null,
      note: b.open >= 100_000 ? undefined : 'largest size below 100,000; not evaluated',
    });
  } else rows.push({ target: 'reference client per-poll cost flat from 1,000 to 100,000 open operations', measured: 'not run (--only)', met: null });
  const p = r.provider;
  if (p) {
    const a = p.points[0]!;
    const b = p.points.at(-1)!;
    const evaluated = b.jobs >= 100_000;
    rows.push({
      target: 'provider status-read latency flat from 1,000 to 100,000 jobs',
      measured: `p50 ${a.p50Ms} → ${b.p50Ms} ms (${p.latencyGrowth}×), p99 ${a.p99Ms} → ${b.p99Ms} ms, ${num(a.rps)} → ${num(b.rps)} reads/s`,
      met: evaluated ? p.latencyGrowth <= FLAT_LATENCY : null,
      note: evaluated ? undefined : 'largest size below 100,000; not evaluated',
    });
    // Idle RSS (started, settled, before any load) is what the jobs cost; RSS after load mostly shows how far V8's
    // heap has grown with request garbage, which swings by tens of MB from run to run.
    const perJobIdle = ((b.rssIdleMb - a.rssIdleMb) * 1024 * 1024) / (b.jobs - a.jobs);
    rows.push({
      target: 'provider memory grows by < 1 KB per job',
      measured: `${num(perJobIdle)} B/job idle (RSS ${a.rssIdleMb} MB at ${num(a.jobs)} → ${b.rssIdleMb} MB at ${num(b.jobs)}); after load ${a.rssAfterMb} → ${b.rssAfterMb} MB (${num(p.bytesPerJob)} B/job, GC noise)`,
      met: evaluated ? perJobIdle < 1024 : null,
      note: evaluated ? undefined : 'largest size below 100,000; not evaluated',
    });
  } else {
    rows.push({ target: 'provider status-read latency flat from 1,000 to 100,000 jobs', measured: 'not run (--only)', met: null });
    rows.push({ target: 'provider memory grows by < 1 KB per job', measured: 'not run (--only)', met: null });
  }
  return rows;
}

const yes = (m: boolean | null) => (m === null ? '—' : m ? 'yes' : '**no**');

function markdown(r: Results): string {
  const m = r.meta;
  const L: string[] = [];
  L.push('# Benchmarks', '');
  L.push('Written by `npm run bench` (`dist-bench/bench/src/run.js`; sources in `bench/src/`); the raw figures are in `bench/results.json`. Do not edit by hand: the next full run rewrites this file.', '');
  L.push(`- Date: ${m.date}${m.quick ? ' (**quick pass**, not the full run)' : ''}`);
  L.push(`- Machine: ${m.machine.cores} cores (${m.machine.cpu}), ${m.machine.memGb} GiB, ${m.machine.platform}, Node ${m.machine.node}${m.java ? `, ${m.java}` : ''}`);
  L.push(`- Load average (1/5/15 min) at start: ${m.loadavg.start.join(' / ')}; at end: ${m.loadavg.end.join(' / ')} — a shared machine: other engineers' test runs were on it, so absolute figures drift; compare ratios.`);
  L.push(`- Code: ${m.git.commit.slice(0, 12)}${m.git.dirtyFiles ? ` with ${m.git.dirtyFiles} uncommitted files in the work tree` : ''}; tools: ${Object.entries(m.versions).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  if (m.resumedAt) L.push(`- Resumed: the run stopped after section 2 (a bench bug, since fixed); sections 3 and 4 ran at ${m.resumedAt.date} (load average ${m.resumedAt.loadavg.join(' / ')}, code ${m.resumedAt.git.commit.slice(0, 12)}${m.resumedAt.git.dirtyFiles ? ` with ${m.resumedAt.git.dirtyFiles} uncommitted files` : ''})`);
  L.push(`- Whole run: ${(m.wallS / 60).toFixed(1)} min of measuring`, '');
  L.push('Each figure is the median of several runs; every ratio is taken between runs of the same round (one after the other, same machine state), then the median over rounds is reported.', '');

  L.push('## Targets', '', '| target | measured | met? |', '| --- | --- | --- |');
  for (const t of r.targets) L.push(`| ${t.target} | ${t.measured}${t.note ? ` — ${t.note}` : ''} | ${yes(t.met)} |`);
  L.push('');

  const h = r.http;
  if (h) {
    L.push('## 1. Provider over HTTP (loopback, autocannon)', '');
    L.push(`${h.config.connections} keep-alive connections, no pipelining, ${h.config.durationS} s per run, ${h.config.rounds} rounds (target order rotated each round), after a ${h.config.warmS} s warm-up per target (WireMock: ${h.config.jitWarmS} s, for its JIT). Status reads rotate through 100 job ids; every create carries a fresh Idempotency-Key. Each server runs in its own process; RSS is its VmRSS. The comparison targets serve the body the provider returned for the same request (captured at start), so response sizes match.`, '');
    L.push('| target | status reads/s | p50 / p99 ms | creates/s | p50 / p99 ms | RSS after rounds | jobproof ÷ target (reads) | jobproof ÷ target (creates) |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const [name, med] of Object.entries(h.median)) {
      const s = med.status;
      const c = med.create;
      const bad = (x?: { non2xx: number; errors: number }) => (x && (x.non2xx || x.errors) ? ` (${x.non2xx} non-2xx, ${x.errors} errors)` : '');
      L.push(`| ${name} | ${num(s?.rps ?? NaN)}${bad(s)} | ${s?.p50Ms ?? '—'} / ${s?.p99Ms ?? '—'} | ${num(c?.rps ?? NaN)}${bad(c)} | ${c?.p50Ms ?? '—'} / ${c?.p99Ms ?? '—'} | ${h.rssAfterRoundsMb[name]} MB | ${name === 'jobproof' ? '—' : `${h.statusRatio[name]?.toFixed(2)}×`} | ${name === 'jobproof' ? '—' : `${h.createRatio[name]?.toFixed(2)}×`} |`);
    }
    for (const [name, why] of Object.entries(h.notMeasured)) L.push(`| ${name} | not measured: ${why} | | | | | | |`);
    L.push('');
    L.push('Per round (status reads/s):', '', `| round | ${Object.keys(h.median).join(' | ')} |`, `| --- | ${Object.keys(h.median).map(() => '---').join(' | ')} |`);
    h.rounds.forEach((rd, i) => void L.push(`| ${i + 1} | ${Object.keys(h.median).map((n) => num(rd[n]?.status?.rps ?? NaN)).join(' | ')} |`));
    L.push('');
    if (h.soak.length) {
      L.push('### Memory over a long run', '', `A fresh process per target, warmed, then ${num(h.config.soakRequests)} status reads (50 connections) in ten slices; RSS after each slice.`, '');
      L.push('| target | requests | RSS start | midway | end | reads/s over the run | non-2xx / errors |', '| --- | --- | --- | --- | --- | --- | --- |');
      for (const s of h.soak) L.push(`| ${s.target} | ${num(s.requests)} | ${s.rssStartMb} MB | ${s.rssMidMb} MB | ${s.rssEndMb} MB | ${num(s.rps)} | ${s.non2xx} / ${s.errors} |`);
      L.push('', 'RSS after each tenth (MB):', '');
      for (const s of h.soak) L.push(`- ${s.target}: ${s.series.map((x) => x.rssMb).join(', ')}`);
      L.push('');
    }
  }
  const c = r.conformance;
  if (c) {
    L.push('## 2. In-process conformance and the catalog', '');
    L.push(`Property run of the reference client on the virtual clock (\`propertyRun\`, in-process), ${c.config.runs} schedules per seed; the catalog through the process runner is \`jobproof certify --webhooks --scenarios ${c.config.scenarios}\` (parallel = cores), timed from spawn to exit.`, '');
    L.push('| property run seed | schedules | wall | schedules/s | failed? | errors escaping the run |', '| --- | --- | --- | --- | --- | --- |');
    for (const p of c.property) L.push(`| ${p.seed} | ${p.schedules} | ${(p.wallMs / 1000).toFixed(1)} s | ${p.crashed ? `crashed: ${p.crashed}` : p.perSecond} | ${p.failed ? 'yes (shrinking included)' : 'no'} | ${p.escaped ? `${p.escaped}: \`${(p.firstEscaped ?? '').replace(/\|/g, '/')}\`` : 'none'} |`);
    L.push('', 'Each property run is its own process. An error escaping the project\'s code (an unhandled rejection or uncaught exception) would otherwise end the process, as it ends `jobproof certify --in-process`; the child counts such errors and carries on, and they are listed above.');
    L.push('', '| catalog run | wall | exit | summary |', '| --- | --- | --- | --- |');
    c.catalog.forEach((x, i) => void L.push(`| ${i + 1} | ${(x.wallMs / 1000).toFixed(1)} s | ${x.exitCode} | ${x.summary} |`));
    L.push('', `Load average during this section: ${c.loadavg.before.join(' / ')} → ${c.loadavg.after.join(' / ')}.`, '');
  }
  const cl = r.client;
  if (cl) {
    L.push('## 3. Reference client at scale', '');
    L.push(`\`SqliteOperationStore\` (the worker's store: WAL, synchronous=FULL) holding N open operations, ${cl.config.decisions * 16} of them due; the rest open but not due. A decision is what \`Worker.run\` does per loop: \`countOpen()\` + \`claimDue(owner, now, 10 s, 16)\`, plus \`nextWakeAt()\` (which the worker calls when nothing was claimed). ${cl.config.decisions} decisions × ${cl.config.reps} repetitions per size; each claimed operation is then committed (one fenced \`commit\`, a BEGIN IMMEDIATE transaction). CPU time is the process's user+system time around the calls; each size runs in its own process (RSS = that process).`, '');
    L.push('| open operations | CPU µs / decision | countOpen | claimDue(16) | nextWakeAt | wall µs / decision | claim tx/s | commit tx/s | RSS | store on disk |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const p of cl.points) L.push(`| ${num(p.open)} | ${p.decisionCpuUs} | ${p.parts.countOpenCpuUs} | ${p.parts.claimDueCpuUs} | ${p.parts.nextWakeAtCpuUs} | ${p.decisionWallUs} | ${num(p.claimTxPerS)} | ${num(p.commitTxPerS)} | ${p.rssMb} MB | ${p.dbMb} MB |`);
    const last = cl.points.at(-1)!;
    L.push('', 'Query plans (SQLite `EXPLAIN QUERY PLAN`):', '');
    for (const [q, plan] of Object.entries(last.plans)) L.push(`- ${q}: ${plan.map((x) => `\`${x}\``).join('; ')}`);
    L.push('');
  }
  const p = r.provider;
  if (p) {
    L.push('## 4. Provider at scale', '');
    L.push(`A store seeded with N jobs (created an hour earlier, each run to its end with its journal entries), served by \`jobproof serve\`; status reads over 1,000 ids spread across the store, ${p.config.connections} connections, ${p.config.reps} × ${p.config.durationS} s after a ${p.config.warmS} s warm-up.`, '');
    L.push('| jobs | reads/s | p50 / p99 ms | RSS idle | RSS after reads | store on disk | start-up |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const x of p.points) L.push(`| ${num(x.jobs)} | ${num(x.rps)}${x.non2xx ? ` (${x.non2xx} non-2xx)` : ''} | ${x.p50Ms} / ${x.p99Ms} | ${x.rssIdleMb} MB | ${x.rssAfterMb} MB | ${x.dbMb} MB | ${x.startS.toFixed(1)} s |`);
    L.push('');
  }
  // Hand-written reading of the figures (bench/notes.md), kept across runs; it names the run it was written for.
  const notes = join(ROOT, 'bench', 'notes.md');
  if (existsSync(notes)) L.push(readFileSync(notes, 'utf8').trim(), '');
  L.push('## Method notes', '');
  L.push(`- "Flat": provider memory — RSS at the end of the long run within +${FLAT_SOAK_END * 100} % of RSS after its first tenth, and no tenth above +${FLAT_SOAK_PEAK * 100} % of it; client per-poll cost — CPU per decision at the largest size within ${FLAT_CLIENT}× of the smallest; provider latency — p50 at the largest size within ${FLAT_LATENCY}× of the smallest.`);
  L.push('- Load generator and servers share the same cores (2 on the reference machine): throughput figures are those of a server with one core left to it, and every target pays the same tax.');
  L.push('- The jobproof provider journals every request into SQLite (WAL) and brings due jobs up to date before answering; the comparison targets only match a path and return a fixed body.');
  L.push('- `npm run bench -- --quick` (or `npm run bench:quick`) is a smoke pass; it writes to `bench/tmp/` and leaves this file alone.');
  L.push('');
  return L.join('\n');
}

export function writeReport(r: Results, quick: boolean): { json: string; md: string } {
  const json = quick ? join(ROOT, 'bench', 'tmp', 'results-quick.json') : join(ROOT, 'bench', 'results.json');
  const md = quick ? join(ROOT, 'bench', 'tmp', 'benchmarks-quick.md') : join(ROOT, 'docs', 'benchmarks.md');
  mkdirSync(dirname(json), { recursive: true });
  writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  // The store section comes from its own bench (`npm run bench:stores`): carry it over.
  writeFileSync(md, markdown(r) + existingStoreSection(md));
  return { json, md };
}
