import type { ConformanceSection } from './conformance-speed.js';
import type { Results, TargetRow } from './report.js';
import type { MutantCatch, SearchPowerSection } from './search-power.js';

/**
 * Issue 22's parts of the report: search power (section 5) and the Node 24 column beside the Node 20 figures of
 * sections 2 and 5. The targets are judged on Node 20 (see the header of docs/benchmarks.md for why).
 */

const worst = (m: MutantCatch, cap: number) => (m.caught < m.hunts.length ? `> ${cap}` : String(m.worstSchedules));
const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '—');
const fig = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '—' : String(x));

export function searchTargets(r: Omit<Results, 'targets'>): TargetRow[] {
  const s = r.search;
  const target = 'search power: time until a random run first catches each in-process mutant (10 seeds)';
  if (!s) return [{ target, measured: 'not run (--only)', met: null }];
  const all = s.mutants.filter((m) => m.caught === s.config.seeds.length).length;
  const never = s.mutants.filter((m) => m.caught === 0).map((m) => m.mutant);
  const slowest = [...s.mutants].sort((a, b) => b.medianSchedules - a.medianSchedules)[0];
  return [
    {
      target: 'search power: schedules per CPU second over the catalog fault space (one thread, reference client)',
      measured: `${fig(s.throughput.perCpuSecond)}/CPU s (${fig(s.throughput.perSecond)}/s wall; ${s.throughput.schedules} schedules, seed ${s.config.seed})${r.node24?.search ? `; Node 24: ${fig(r.node24.search.throughput.perCpuSecond)}/CPU s` : ''}`,
      met: null,
      note: 'a figure to watch, not a target of its own: see section 5',
    },
    {
      target,
      measured: `${all} of ${s.mutants.length} mutants caught from every seed; never caught within ${s.config.cap} schedules: ${never.length ? never.join(', ') : 'none'}; slowest to catch: ${slowest ? `${slowest.mutant} (median ${slowest.medianSchedules} schedules, ${secs(slowest.medianCpuMs)} CPU)` : '—'}`,
      met: null,
      note: 'a figure to watch: see section 5',
    },
  ];
}

function conformanceCells(c: ConformanceSection | undefined): string[] {
  if (!c) return ['—', '—', '—'];
  const cpu = c.property.map((p) => p.cpuMsPerSchedule).filter(Number.isFinite);
  return [
    `${fig(c.schedulesPerSecond)}/s`,
    cpu.length ? `${Math.min(...cpu) === Math.max(...cpu) ? cpu[0] : `${Math.min(...cpu)}–${Math.max(...cpu)}`} ms` : '—',
    `${c.catalogWallS.toFixed(1)} s (${c.catalog.map((x) => x.exitCode).join('/')})`,
  ];
}

/** Section 2's figures side by side on both Nodes (absent when the run had --no-node24). */
export function columnsMarkdown(r: Omit<Results, 'targets'>): string[] {
  const col = r.node24;
  if (!col) return [];
  const L = ['### Node 20 and Node 24', ''];
  if (col.failed) return [...L, `The Node 24 column was not measured: ${col.failed}.`, ''];
  const a = conformanceCells(r.conformance);
  const b = conformanceCells(col.conformance);
  const sa = r.search?.throughput;
  const sb = col.search?.throughput;
  L.push(
    `| figure | ${r.meta.machine.node} | ${col.node} |`,
    '| --- | --- | --- |',
    `| in-process schedules/s (lanes, median) | ${a[0]} | ${b[0]} |`,
    `| CPU per schedule (all lanes) | ${a[1]} | ${b[1]} |`,
    `| catalog through processes, median wall (exit codes) | ${a[2]} | ${b[2]} |`,
    `| search power: schedules per CPU second, one thread | ${fig(sa?.perCpuSecond)} | ${fig(sb?.perCpuSecond)} |`,
    '',
    'Node 24 runs in a child of the bench under `scripts/with-node24.sh` (better-sqlite3 built for it into `.node24/` and loaded by a preload, so `node_modules` keeps its Node 20 build). The targets are judged on the Node 20 column.',
    '',
  );
  return L;
}

/** Section 5: schedules per second and time-to-catch per mutant. */
export function searchMarkdown(r: Omit<Results, 'targets'>): string[] {
  const s = r.search;
  if (!s) return [];
  const n24 = r.node24?.search;
  const L = ['## 5. Search power (issue 22)', ''];
  L.push(
    `Random fault schedules from the catalog's fault space (\`scheduleArb\`, as \`certify --in-process\` draws them), one thread, on the virtual clock. Throughput: ${s.throughput.schedules} schedules of the reference client (in-memory store), seed ${s.config.seed}. Time to catch: each deliberately broken client of \`test/conformance/mutants/\` hunted from seeds ${s.config.seeds.join(', ')}; a hunt draws schedules until the first one fails (any invariant; no shrinking) or gives up after ${s.config.cap}. The figure is schedules drawn up to the catching one (machine-independent) and the CPU time that took (a hunt that gave up counts as ${s.config.cap}). The mutants' own stores are the file-backed SQLite store of their seam, so their CPU per schedule is higher than the reference client's.`,
    '',
    '| figure | schedules | wall | CPU | schedules/s | schedules per CPU second |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  const row = (label: string, t: SearchPowerSection['throughput']) =>
    `| ${label} | ${t.schedules} | ${secs(t.wallMs)} | ${secs(t.cpuMs)} | ${fig(t.perSecond)} | ${fig(t.perCpuSecond)} |`;
  L.push(row(`throughput, ${s.node}`, s.throughput));
  if (n24) L.push(row(`throughput, ${n24.node}`, n24.throughput));
  L.push('');
  const head = n24
    ? `| mutant | named invariant | caught from | schedules to catch, median / worst | CPU to catch, median / worst | ${n24.node}: schedules median / worst | ${n24.node}: CPU median / worst |`
    : '| mutant | named invariant | caught from | schedules to catch, median / worst | CPU to catch, median / worst |';
  L.push(head, `|${' --- |'.repeat(n24 ? 7 : 5)}`);
  for (const m of s.mutants) {
    const o = n24?.mutants.find((x) => x.mutant === m.mutant);
    const cells = [
      m.mutant,
      m.caughtBy,
      m.crashed ? `crashed: ${m.crashed.replace(/\|/g, '/')}` : `${m.caught}/${m.hunts.length} seeds`,
      `${fig(m.medianSchedules)} / ${worst(m, s.config.cap)}`,
      `${secs(m.medianCpuMs)} / ${secs(m.worstCpuMs)}`,
    ];
    if (n24)
      cells.push(
        o ? `${fig(o.medianSchedules)} / ${worst(o, n24.config.cap)}` : '—',
        o ? `${secs(o.medianCpuMs)} / ${secs(o.worstCpuMs)}` : '—',
      );
    L.push(`| ${cells.join(' | ')} |`);
  }
  L.push('', `Load average during this section: ${s.loadavg.before.join(' / ')} → ${s.loadavg.after.join(' / ')}.`, '');
  return L;
}
