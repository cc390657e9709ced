import { existingStoreSection } from './store-backends-report.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ClientScaleSection } from './client-scale.js';
import { mb, ROOT } from './common.js';
import type { ConformanceSection } from './conformance-speed.js';
import { type HttpSection, SOAK_JOURNAL_MAX, type SoakResult } from './http-bench.js';
import type { ProviderScaleSection } from './provider-scale.js';
import { columnsMarkdown, searchMarkdown, searchTargets } from './report-search.js';
import type { SearchPowerSection } from './search-power.js';
import { type BusyCatalogSection, busyMarkdown, busyRow } from './catalog-busy.js';
import { type FloorsSection, floorsMarkdown } from './catalog-floors.js';

/** A `--resume` run: when, on what load and code, and which sections it measured. */
export interface Resume {
  date: string;
  loadavg: number[];
  git: { commit: string; dirtyFiles: number };
  sections?: string[];
}

/** Every resume of a run, oldest first (results written before `resumes` existed name only their last). */
export function resumesOf(m: Pick<Meta, 'resumes' | 'resumedAt'>): Resume[] {
  return m.resumes ?? (m.resumedAt ? [m.resumedAt] : []);
}

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
  /** Results of 6 Dec and before: the last --resume alone (when, and since 6 Dec which sections it measured). */
  resumedAt?: Resume;
  /** Every --resume that measured sections again, oldest first; a section is from the last one that names it. */
  resumes?: Resume[];
  /** Set when the HTTP rounds of section 1 were measured again (`--only http`) and put beside the other sections. */
  httpRoundsRerun?: { date: string; loadavg: { start: number[]; end: number[] }; git: { commit: string; dirtyFiles: number } };
}

export interface Results {
  meta: Meta;
  http?: HttpSection;
  conformance?: ConformanceSection;
  client?: ClientScaleSection;
  provider?: ProviderScaleSection;
  search?: SearchPowerSection;
  floors?: FloorsSection;
  /** The catalog through processes beside two busy loops (issue 22 item 2: ≤ 2× the quiet figure). */
  busy?: BusyCatalogSection;
  /** The same in-process, catalog and search-power measurements on Node 24 (by default; not with `--no-node24`). */
  node24?: ColumnResults;
  targets: TargetRow[];
}

/** Sections measured by a child on another Node (run.ts --column), beside this run's. */
export interface ColumnResults {
  node: string;
  conformance?: ConformanceSection;
  search?: SearchPowerSection;
  /** Why the column is missing, when its run failed. */
  failed?: string;
}

export interface TargetRow {
  target: string;
  measured: string;
  /** The issue's "must" goal, and whether it is met (null: not measured or not evaluable in this run). */
  must?: string;
  met: boolean | null;
  aim?: string;
  metAim?: boolean | null;
  note?: string;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
const num = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : 'n/a');
const times = (x: number) => `${x.toFixed(2)}×`;
/** A ratio in the side-by-side table; `jobproof-memory` takes no status reads, so its reads ratio is no number. */
const ratioCell = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? times(x) : '—');

/** Flat (issue 13): every tenth of the long run, and its end, within this fraction above the first tenth (after warm-up). */
const FLAT_MUST = 0.25;
const FLAT_AIM = 0.1;
const FLAT_CLIENT = 1.5;
const LATENCY_MUST = 1.15;
const LATENCY_AIM = 1.05;
/** Decision 030: durable creates on the default file store, quiet 2 cores, 50 connections. */
const CREATES_MUST = 10_000;
const CREATES_P99_MS = 25;
/** Issue 22: in-process schedules per second (median of 3 runs of 1,000) and the catalog through processes. */
const SCHEDULES_MUST = 250;
const SCHEDULES_AIM = 500;
const CATALOG_MUST_S = 12;
const CATALOG_AIM_S = 8;

function soakGrowth(s: SoakResult): number {
  const first = s.series[0]!.rssMb;
  return Math.max(...s.series.map((x) => x.rssMb)) / first - 1;
}

/** The targets of issue 13, each against its "must" and its "aim", from the figures of one run. */
export function evaluate(r: Omit<Results, 'targets'>): TargetRow[] {
  const rows: TargetRow[] = [];
  const h = r.http;
  const notRun = (target: string, must: string, aim: string, why = 'not run (--only)') =>
    rows.push({ target, measured: why, must, met: null, aim, metAim: null });
  const ratio = (name: string, target: string, must: number, aim: number, show: (x: number) => string) => {
    const mustS = `≥ ${show(must)}`;
    const aimS = `≥ ${show(aim)}`;
    if (!h) return notRun(target, mustS, aimS);
    if (h.notMeasured[name]) return notRun(target, mustS, aimS, `not measured: ${h.notMeasured[name]}`);
    const x = h.statusRatio[name];
    if (x === undefined || !Number.isFinite(x)) return notRun(target, mustS, aimS, 'no figure');
    const jp = h.median.jobproof?.status;
    const other = h.median[name]?.status;
    rows.push({
      target,
      must: mustS,
      aim: aimS,
      met: x >= must,
      metAim: x >= aim,
      measured: `${show(x)} (${num(jp?.rps ?? NaN)} vs ${num(other?.rps ?? NaN)} reads/s, medians; server CPU ${jp?.cpuUs ?? '?'} vs ${other?.cpuUs ?? '?'} µs/read)`,
    });
  };
  // Issue 22: reads ≥ 0.8× bare Hono (the stack's ceiling) while keeping ≥ 1.5× WireMock-journal.
  ratio('wiremock-journal', 'journalled status reads vs WireMock, journal on', 1.5, 2, times);
  ratio('mockttp', 'journalled status reads vs mockttp', 2, 3, times);
  ratio('bare-hono', 'journalled status reads vs bare Hono on @hono/node-server', 0.8, 0.9, pct);
  // Decision 030: durable creates on the default file store against an absolute figure; like for like with
  // WireMock (whose journal lives in memory) on `:memory:`.
  const createsT = "durable creates on the default file store (SQLite, idempotency, journal, each job's life cycle), 50 connections";
  const c0 = h?.median.jobproof?.create;
  if (c0) {
    rows.push({
      target: createsT,
      must: `≥ ${num(CREATES_MUST)}/s, p99 ≤ ${CREATES_P99_MS} ms`,
      met: c0.rps >= CREATES_MUST && c0.p99Ms <= CREATES_P99_MS,
      measured: `${num(c0.rps)} creates/s (median), p50 ${c0.p50Ms} ms, p99 ${c0.p99Ms} ms; server CPU ${c0.cpuUs ?? '?'} µs/create`,
    });
  } else notRun(createsT, `≥ ${num(CREATES_MUST)}/s, p99 ≤ ${CREATES_P99_MS} ms`, '', h ? 'not measured' : undefined);
  const memT = 'creates on `:memory:` vs WireMock-journal (like for like: both journals in memory)';
  if (h && !h.notMeasured['wiremock-journal'] && h.memoryCreateRatio !== undefined) {
    const m = h.median['jobproof-memory']?.create;
    const w = h.median['wiremock-journal']?.create;
    rows.push({
      target: memT,
      must: '≥ 1.0×',
      met: h.memoryCreateRatio >= 1,
      measured: `${times(h.memoryCreateRatio)} (${num(m?.rps ?? NaN)} vs ${num(w?.rps ?? NaN)} creates/s, medians; server CPU ${m?.cpuUs ?? '?'} vs ${w?.cpuUs ?? '?'} µs/create)`,
    });
  } else notRun(memT, '≥ 1.0×', '', h ? 'not measured' : undefined);

  const rssT = 'provider RSS over 1,000,000 requests';
  const rssMust = `flat within ${FLAT_MUST * 100} % after warm-up, on file and \`:memory:\` (bounded journal)`;
  const rssAim = `flat within ${FLAT_AIM * 100} %`;
  const soaks = (h?.soak ?? []).filter((x) => x.target === 'jobproof' || x.target === 'jobproof-memory');
  if (soaks.length) {
    const full = soaks.every((x) => x.requests >= 1_000_000) && soaks.length === 2;
    const growth = soaks.map(soakGrowth);
    const wm = h?.soak.find((x) => x.target === 'wiremock-journal');
    const heap = (x: SoakResult) => x.series.map((p) => p.heapAfterGcMb).filter((v): v is number => typeof v === 'number');
    rows.push({
      target: rssT,
      must: rssMust,
      aim: rssAim,
      met: full ? growth.every((g) => g <= FLAT_MUST) : null,
      metAim: full ? growth.every((g) => g <= FLAT_AIM) : null,
      measured: `${soaks.map((x, i) => `${x.target === 'jobproof' ? 'file' : ':memory:'}: ${x.series[0]!.rssMb} MB after the first tenth → peak ${Math.max(...x.series.map((p) => p.rssMb))} MB, ${x.rssEndMb} MB at the end of ${num(x.requests)} (+${pct(growth[i]!)}); V8 heap after full GCs ${Math.min(...heap(x))}–${Math.max(...heap(x))} MB`).join('; ')}${wm ? `; WireMock, journal on: ${wm.series[0]!.rssMb} → ${wm.rssEndMb} MB` : ''}`,
      note: full ? undefined : 'fewer than 1,000,000 requests or not both stores (--requests/--soak); not evaluated',
    });
  } else notRun(rssT, rssMust, rssAim, h ? 'not run (--soak)' : undefined);

  const diskT = 'journal on disk';
  const fileSoak = h?.soak.find((x) => x.target === 'jobproof' && x.journal);
  const memSoak = h?.soak.find((x) => x.target === 'jobproof-memory');
  if (fileSoak?.journal) {
    const b = fileSoak.journal.bytesPerEntry;
    const bounded = !!memSoak && soakGrowth(memSoak) <= FLAT_MUST;
    rows.push({
      target: diskT,
      must: '≤ 200 bytes per entry, or a retention bound',
      aim: 'compact + bounded',
      met: b <= 200 || bounded,
      metAim: b <= 200 && bounded,
      measured: `${b} bytes per entry (${num(fileSoak.journal.entries)} entries, ${mb(fileSoak.journal.bytes)} MB of journal pages after the file soak); bound: \`serve --journal-max N\`${memSoak ? ` (soaked on \`:memory:\` with N = ${num(SOAK_JOURNAL_MAX)})` : ''}`,
    });
  } else notRun(diskT, '≤ 200 bytes per entry, or a retention bound', 'compact + bounded', h ? 'not run (--soak)' : undefined);

  const c = r.conformance;
  const schedT = 'in-process fault schedules per second (reference client)';
  if (c) {
    rows.push({
      target: schedT,
      must: `≥ ${SCHEDULES_MUST}/s`,
      aim: `≥ ${SCHEDULES_AIM}/s`,
      met: c.schedulesPerSecond >= SCHEDULES_MUST,
      metAim: c.schedulesPerSecond >= SCHEDULES_AIM,
      measured: `${c.schedulesPerSecond}/s (median of ${c.property.length} property runs${c.property.some((p) => p.escaped || p.crashed) ? '; some runs had errors escaping, see section 2' : ''})`,
    });
    const full = c.config.scenarios === 'all';
    const allPassed = c.catalog.every((x) => x.exitCode === 0);
    rows.push({
      target: 'whole catalog through processes (reference client)',
      must: `≤ ${CATALOG_MUST_S} s`,
      aim: `≤ ${CATALOG_AIM_S} s`,
      measured: `${c.catalogWallS.toFixed(1)} s (median of ${c.catalog.length}; ${c.scenarios} scenarios${allPassed ? ', all passed' : ', NOT all passed'})`,
      met: full ? c.catalogWallS <= CATALOG_MUST_S : null,
      metAim: full ? c.catalogWallS <= CATALOG_AIM_S : null,
      note: full ? undefined : 'subset of the catalog (quick pass); not evaluated',
    });
  } else {
    notRun(schedT, `≥ ${SCHEDULES_MUST}/s`, `≥ ${SCHEDULES_AIM}/s`);
    notRun('whole catalog through processes (reference client)', `≤ ${CATALOG_MUST_S} s`, `≤ ${CATALOG_AIM_S} s`);
  }
  rows.push(busyRow(r));
  const p = r.provider;
  const latT = 'provider status-read p50 from 1k to 100k jobs';
  if (p) {
    const a = p.points[0]!;
    const b = p.points.find((x) => x.jobs === 100_000);
    const g = p.latencyGrowth100k;
    rows.push({
      target: latT,
      must: `flat within ${Math.round((LATENCY_MUST - 1) * 100)} %`,
      aim: 'flat',
      met: g === null ? null : g <= LATENCY_MUST,
      metAim: g === null ? null : g <= LATENCY_AIM,
      measured: b
        ? a.probe && b.probe
          ? `p50 one at a time ${num(a.probe.p50Us)} → ${num(b.probe.p50Us)} µs (${g}×; p99 ${num(a.probe.p99Us)} → ${num(b.probe.p99Us)} µs); under ${p.config.connections} connections p50 ${a.p50Ms} → ${b.p50Ms} ms (whole ms); server CPU ${a.cpuUs} → ${b.cpuUs} µs/read`
          : `p50 ${a.p50Ms} → ${b.p50Ms} ms (${g}×), server CPU ${a.cpuUs} → ${b.cpuUs} µs/read`
        : 'no 100,000-job point',
    });
    const last = p.points.at(-1)!;
    rows.push({
      target: `cost curve: reads and creates from ${num(a.jobs)} to ${num(last.jobs)} jobs (${num(a.journalEntries)} → ${num(last.journalEntries)} journal entries)`,
      must: 'flat',
      met: null,
      measured: `server CPU per read ${a.cpuUs} → ${last.cpuUs} µs (${p.readCpuGrowth}×), per create ${a.create.cpuUs} → ${last.create.cpuUs} µs (${p.createCpuGrowth}×); p50 read ${a.p50Ms} → ${last.p50Ms} ms, create ${a.create.p50Ms} → ${last.create.p50Ms} ms`,
      note: 'not a target of its own: see section 4',
    });
  } else notRun(latT, `flat within ${Math.round((LATENCY_MUST - 1) * 100)} %`, 'flat');
  const cl = r.client;
  if (cl) {
    const a = cl.points[0]!;
    const b = cl.points.at(-1)!;
    rows.push({
      target: 'reference client per-poll cost from 1,000 to 100,000 open operations (issue 7)',
      must: `within ${FLAT_CLIENT}×`,
      measured: `${a.decisionCpuUs} → ${b.decisionCpuUs} µs CPU per decision (${cl.growth}×)`,
      met: b.open >= 100_000 ? cl.growth <= FLAT_CLIENT : null,
    });
  }
  rows.push(...searchTargets(r));
  return rows;
}

const yes = (m: boolean | null) => (m === null ? '—' : m ? 'yes' : '**no**');

function markdown(r: Results): string {
  const m = r.meta;
  const L: string[] = [];
  L.push('# Benchmarks', '');
  L.push(
    'Written by `npm run bench` (`dist-bench/bench/src/run.js`; sources in `bench/src/`); the raw figures are in `bench/results.json`. Do not edit by hand: the next full run rewrites this file.',
    '',
  );
  L.push(`- Date: ${m.date}${m.quick ? ' (**quick pass**, not the full run)' : ''}`);
  L.push(
    `- Machine: ${m.machine.cores} cores (${m.machine.cpu}), ${m.machine.memGb} GiB, ${m.machine.platform}, Node ${m.machine.node}${m.java ? `, ${m.java}` : ''}`,
  );
  L.push(
    `- Load average (1/5/15 min) at start: ${m.loadavg.start.join(' / ')}; at end: ${m.loadavg.end.join(' / ')} — a shared machine: other engineers' test runs were on it, so absolute figures drift; compare ratios.`,
  );
  L.push(
    `- Code: ${m.git.commit.slice(0, 12)}${m.git.dirtyFiles ? ` with ${m.git.dirtyFiles} uncommitted files in the work tree` : ''}; tools: ${Object.entries(
      m.versions,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  const resumes = resumesOf(m);
  if (resumes.length > 1) L.push('- Each section below is from the last run of this list that names it (the first run otherwise).');
  for (const r of resumes)
    L.push(
      `- Resumed: ${r.sections ? `sections ${r.sections.join(', ')} were measured by a \`--resume\` run` : 'the run stopped after section 2 (a bench bug, since fixed); sections 3 and 4 ran'} at ${r.date} (load average ${r.loadavg.join(' / ')}, code ${r.git.commit.slice(0, 12)}${r.git.dirtyFiles ? ` with ${r.git.dirtyFiles} uncommitted files` : ''})`,
    );
  if (m.httpRoundsRerun) {
    const r = m.httpRoundsRerun;
    L.push(
      `- Section 1's rounds (the side-by-side table) were measured again at ${r.date} with \`--only http\` (load average ${r.loadavg.start.join(' / ')} → ${r.loadavg.end.join(' / ')}, code ${r.git.commit.slice(0, 12)}): the first run's rounds coincided with another engineer's benchmark (load average 30+). The long memory runs, sections 2 and 4 are from the full run.`,
    );
  }
  L.push(`- Whole run: ${(m.wallS / 60).toFixed(1)} min of measuring`);
  L.push(
    `- Node: every section runs on ${m.machine.node}; ${r.node24 ? `sections 2 and 5 also on ${r.node24.node} in their own column.` : 'this run has no Node 24 column (`--no-node24`).'} **Quote the Node 20 column**: the targets are judged on it, every section has it, and every earlier run was measured on it; it is also the floor \`engines\` promises. The Node 24 column says what users on the current LTS see.`,
    '',
  );
  L.push(
    'Each figure is the median of several runs; every ratio is taken between runs of the same round (one after the other, same machine state), then the median over rounds is reported.',
    '',
  );

  L.push(
    '## Targets (issues 13 and 22; creates restated by decision 030)',
    '',
    '| target | measured (this run) | goal (must) | met? | goal (aim) | met? |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const t of r.targets)
    L.push(
      `| ${t.target} | ${t.measured}${t.note ? ` — ${t.note}` : ''} | ${t.must ?? ''} | ${yes(t.met)} | ${t.aim ?? ''} | ${t.aim ? yes(t.metAim ?? null) : ''} |`,
    );
  L.push('');

  const h = r.http;
  if (h) {
    L.push('## 1. Provider over HTTP (loopback, autocannon)', '');
    L.push(
      `${h.config.connections} keep-alive connections, no pipelining, ${h.config.durationS} s per run, ${h.config.rounds} rounds (target order rotated each round), after a ${h.config.warmS} s warm-up per target (WireMock: ${h.config.jitWarmS} s, for its JIT). Status reads rotate through 100 job ids; every create carries a fresh Idempotency-Key. Each server runs in its own process; RSS is its VmRSS. The comparison targets serve the body the provider returned for the same request (captured at start), so response sizes match.`,
      '',
    );
    L.push(
      '| target | status reads/s | p50 / p99 ms | server CPU µs/read | creates/s | p50 / p99 ms | server CPU µs/create | RSS after rounds | jobproof ÷ target (reads) | jobproof ÷ target (creates) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const [name, med] of Object.entries(h.median)) {
      const s = med.status;
      const c = med.create;
      const bad = (x?: { non2xx: number; errors: number }) =>
        x && (x.non2xx || x.errors) ? ` (${x.non2xx} non-2xx, ${x.errors} errors)` : '';
      L.push(
        `| ${name} | ${num(s?.rps ?? NaN)}${bad(s)} | ${s?.p50Ms ?? '—'} / ${s?.p99Ms ?? '—'} | ${s?.cpuUs ?? '—'} | ${num(c?.rps ?? NaN)}${bad(c)} | ${c?.p50Ms ?? '—'} / ${c?.p99Ms ?? '—'} | ${c?.cpuUs ?? '—'} | ${h.rssAfterRoundsMb[name]} MB | ${name === 'jobproof' ? '—' : ratioCell(h.statusRatio[name])} | ${name === 'jobproof' ? '—' : ratioCell(h.createRatio[name])} |`,
      );
    }
    for (const [name, why] of Object.entries(h.notMeasured)) L.push(`| ${name} | not measured: ${why} | | | | | | | | |`);
    L.push('');
    L.push(
      'Per round (status reads/s):',
      '',
      `| round | ${Object.keys(h.median).join(' | ')} |`,
      `| --- | ${Object.keys(h.median)
        .map(() => '---')
        .join(' | ')} |`,
    );
    h.rounds.forEach(
      (rd, i) =>
        void L.push(
          `| ${i + 1} | ${Object.keys(h.median)
            .map((n) => num(rd[n]?.status?.rps ?? NaN))
            .join(' | ')} |`,
        ),
    );
    L.push('');
    if (h.soak.length) {
      L.push(
        '### Memory over a long run',
        '',
        `A fresh process per target, warmed, then ${num(h.config.soakRequests)} status reads (50 connections) in ten slices; RSS after each slice.`,
        '',
      );
      L.push(
        '| target | requests | RSS start | midway | end | reads/s over the run | non-2xx / errors |',
        '| --- | --- | --- | --- | --- | --- | --- |',
      );
      for (const s of h.soak)
        L.push(
          `| ${s.target} | ${num(s.requests)} | ${s.rssStartMb} MB | ${s.rssMidMb} MB | ${s.rssEndMb} MB | ${num(s.rps)} | ${s.non2xx} / ${s.errors} |`,
        );
      L.push(
        '',
        `\`jobproof\` serves a file store; \`jobproof-memory\` serves \`:memory:\` with \`--journal-max ${num(SOAK_JOURNAL_MAX)}\`. Both run with \`--trace-gc\`: the V8 heap left after each full GC shows what is retained, as against garbage not yet collected.`,
        '',
        'RSS after each tenth (MB):',
        '',
      );
      for (const s of h.soak) L.push(`- ${s.target}: ${s.series.map((x) => x.rssMb).join(', ')}`);
      for (const s of h.soak.filter((x) => x.series.some((p) => p.heapAfterGcMb !== undefined))) {
        L.push(`- ${s.target}, V8 heap after the last full GC: ${s.series.map((x) => x.heapAfterGcMb ?? '—').join(', ')}`);
      }
      for (const s of h.soak.filter((x) => x.journal)) {
        L.push(
          `- ${s.target}: journal at the end ${num(s.journal!.entries)} entries, ${mb(s.journal!.bytes)} MB of pages, ${s.journal!.bytesPerEntry} bytes per entry`,
        );
      }
      L.push('');
    }
  }
  const c = r.conformance;
  if (c) {
    L.push('## 2. In-process conformance and the catalog', '');
    L.push(
      `Random fault schedules against the reference client on the virtual clock, as \`jobproof certify --in-process --runs ${c.config.runs} --seed S\` runs them (property lanes: one worker thread per core, the in-memory client store), ${c.config.runs} schedules per run; CPU is the whole process's (every lane) per schedule. The catalog through the process runner is \`jobproof certify --webhooks --scenarios ${c.config.scenarios}\` (parallel = cores), timed from spawn to exit.`,
      '',
    );
    L.push(
      '| property run seed | schedules | lanes | wall | schedules/s | CPU per schedule | failed? | errors escaping the run |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const p of c.property)
      L.push(
        `| ${p.seed} | ${p.schedules} | ${p.lanes ?? 1} | ${(p.wallMs / 1000).toFixed(1)} s | ${p.crashed ? `crashed: ${p.crashed}` : p.perSecond} | ${p.cpuMsPerSchedule ?? '–'} ms | ${p.failed ? 'yes (shrinking included)' : 'no'} | ${p.escaped ? `${p.escaped}: \`${(p.firstEscaped ?? '').replace(/\|/g, '/')}\`` : 'none'} |`,
      );
    L.push(
      '',
      "Each property run is its own process. An error escaping the project's code (an unhandled rejection or uncaught exception) would otherwise end the process, as it ends `jobproof certify --in-process`; the child counts such errors and carries on, and they are listed above.",
    );
    L.push('', '| catalog run | wall | exit | summary |', '| --- | --- | --- | --- |');
    c.catalog.forEach((x, i) => void L.push(`| ${i + 1} | ${(x.wallMs / 1000).toFixed(1)} s | ${x.exitCode} | ${x.summary} |`));
    L.push('', `Load average during this section: ${c.loadavg.before.join(' / ')} → ${c.loadavg.after.join(' / ')}.`, '');
    L.push(...busyMarkdown(r.busy));
    L.push(...columnsMarkdown(r));
  }
  L.push(...floorsMarkdown(r.floors));
  const cl = r.client;
  if (cl) {
    L.push('## 3. Reference client at scale', '');
    L.push(
      `\`SqliteOperationStore\` (the worker's store: WAL, synchronous=FULL) holding N open operations, ${cl.config.decisions * 16} of them due; the rest open but not due. A decision is what \`Worker.run\` does per loop: \`countOpen()\` + \`claimDue(owner, now, 10 s, 16)\`, plus \`nextWakeAt()\` (which the worker calls when nothing was claimed). ${cl.config.decisions} decisions × ${cl.config.reps} repetitions per size; each claimed operation is then committed (one fenced \`commit\`, a BEGIN IMMEDIATE transaction). CPU time is the process's user+system time around the calls; each size runs in its own process (RSS = that process).`,
      '',
    );
    L.push(
      '| open operations | CPU µs / decision | countOpen | claimDue(16) | nextWakeAt | wall µs / decision | claim tx/s | commit tx/s | RSS | store on disk |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const p of cl.points)
      L.push(
        `| ${num(p.open)} | ${p.decisionCpuUs} | ${p.parts.countOpenCpuUs} | ${p.parts.claimDueCpuUs} | ${p.parts.nextWakeAtCpuUs} | ${p.decisionWallUs} | ${num(p.claimTxPerS)} | ${num(p.commitTxPerS)} | ${p.rssMb} MB | ${p.dbMb} MB |`,
      );
    const last = cl.points.at(-1)!;
    L.push('', 'Query plans (SQLite `EXPLAIN QUERY PLAN`):', '');
    for (const [q, plan] of Object.entries(last.plans)) L.push(`- ${q}: ${plan.map((x) => `\`${x}\``).join('; ')}`);
    L.push('');
  }
  const p = r.provider;
  if (p) {
    L.push('## 4. Provider at scale', '');
    L.push(
      `A store seeded with N jobs (created an hour earlier, each run to its end with its journal entries), served by \`jobproof serve\`; status reads over 1,000 ids spread across the store, ${p.config.connections} connections, ${p.config.reps} × ${p.config.durationS} s, each after a fresh start and a ${p.config.warmS} s warm-up. Every store is seeded first; then each repetition measures every size, in an order that rotates, so that the machine's drift falls on all sizes alike (the medians compare).`,
      '',
    );
    L.push(
      "Reads and creates alternate within each measurement (the cost curve: does a read or a create cost more as the store grows?). After each read run, a probe sends 2,000 status reads one at a time on one keep-alive connection and times each in microseconds (`bench/src/latency-probe.ts`): autocannon counts whole milliseconds, and its p50 under 50 connections is mostly the queue in front of the server. The latency target is judged on the probe's p50.",
      '',
    );
    L.push(
      '| jobs | journal entries | B/entry | reads/s | p50 / p99 ms | one at a time p50 / p99 µs | CPU µs/read | creates/s | p50 / p99 ms | CPU µs/create | RSS idle | RSS after | store on disk | start-up |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const x of p.points) {
      L.push(
        `| ${num(x.jobs)} | ${num(x.journalEntries)} | ${x.journalBytesPerEntry} | ${num(x.rps)}${x.non2xx ? ` (${x.non2xx} non-2xx)` : ''} | ${x.p50Ms} / ${x.p99Ms} | ${x.probe ? `${num(x.probe.p50Us)} / ${num(x.probe.p99Us)}` : '—'} | ${x.cpuUs} | ${num(x.create.rps)}${x.create.non2xx ? ` (${x.create.non2xx} non-2xx)` : ''} | ${x.create.p50Ms} / ${x.create.p99Ms} | ${x.create.cpuUs} | ${x.rssIdleMb} MB | ${x.rssAfterMb} MB | ${x.dbMb} MB | ${x.startS.toFixed(1)} s |`,
      );
    }
    L.push('');
  }
  L.push(...searchMarkdown(r));
  // The dashboard's own figures (npm run bench:dashboard writes bench/dashboard.md), kept across runs of this suite.
  const dashboard = join(ROOT, 'bench', 'dashboard.md');
  if (existsSync(dashboard)) L.push(readFileSync(dashboard, 'utf8').trim(), '');
  // Hand-written reading of the figures (bench/notes.md), kept across runs; it names the run it was written for.
  const notes = join(ROOT, 'bench', 'notes.md');
  if (existsSync(notes)) L.push(readFileSync(notes, 'utf8').trim(), '');
  L.push('## Method notes', '');
  L.push(
    `- "Flat" (issue 13): provider memory — every tenth of the long run, and its end, within +${FLAT_MUST * 100} % (aim +${FLAT_AIM * 100} %) of RSS after its first tenth; provider latency — p50 at 100,000 jobs within ${LATENCY_MUST}× (aim ${LATENCY_AIM}×) of 1,000; client per-poll cost — CPU per decision at the largest size within ${FLAT_CLIENT}× of the smallest.`,
  );
  L.push(
    "- Server CPU µs per request is the server process's user+system time over the run divided by the requests answered (/proc): it depends far less on the machine's load than requests per second, so it is the figure to compare across runs.",
  );
  L.push(
    '- Load generator and servers share the same cores (2 on the reference machine): throughput figures are those of a server with one core left to it, and every target pays the same tax.',
  );
  L.push(
    '- The jobproof provider journals every request into SQLite (WAL) and brings due jobs up to date before answering; the comparison targets only match a path and return a fixed body.',
  );
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
