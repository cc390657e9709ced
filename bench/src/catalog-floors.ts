import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { processLanes } from '../../src/conformance/catalog-run.js';
import { expectedRunMs } from '../../src/conformance/expected-time.js';
import { catalog } from '../../src/scenarios/index.js';
import { CLI, log, ROOT, TMP } from './common.js';

/**
 * Where the catalog's wall time through processes goes (issue 22, item 2): each scenario's floor — the time its own
 * timers need, measured as its run time on the virtual clock in process, where a client costs nothing to start —
 * beside what the same scenario took through client processes, and the lane schedule `certify` follows (longest
 * expected run first, on the lanes certify chose). What a scenario takes above its floor × the time scale is waiting on
 * something other than its own timers: process starts, polls and backoffs on a real clock.
 */
export interface FloorRow {
  scenario: string;
  /** certify's ordering guess (expected-time.ts). */
  expectedMs: number;
  /** Run-clock time in process, on the virtual clock. */
  floorMs: number | null;
  /** Through processes: the run's own clock, and its wall time (client starts included). */
  processRunMs: number | null;
  processWallMs: number | null;
  verdictInProcess: string;
  verdictProcess: string;
  /** Lane and start/end (ms from the catalog's start) in a replay of certify's schedule with the measured walls. */
  lane: number;
  startMs: number;
  endMs: number;
}

export interface FloorsSection {
  lanes: number;
  timeScale: number | null;
  /** Spawn to exit of the process catalog, and its report's own wall time. */
  processWallMs: number;
  rows: FloorRow[];
  /** The longest lane if every scenario took only its floor × the time scale (a lower bound for these lanes). */
  floorScheduleMs: number;
  /** The longest lane of the replayed schedule (measured walls, certify's order). */
  replayedScheduleMs: number;
  sumFloorMs: number;
  sumWallMs: number;
}

interface ReportCase {
  name: string;
  verdict: string;
  run_ms: number | null;
  wall_ms: number;
}
interface Report {
  wall_ms: number;
  time_scale: { factor: number };
  cases: ReportCase[];
}

/** `lanes`: what certify ran with (its `parallel: N` line; calibration may have taken fewer than the default). */
function certify(args: string[], json: string): Promise<{ report: Report; wallMs: number; lanes: number | null }> {
  rmSync(json, { force: true });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'certify', ...args, '--report', `json=${json}`], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('error', reject);
    child.once('close', () => {
      try {
        const lanes = /parallel: (\d+)/.exec(out)?.[1];
        resolve({
          report: JSON.parse(readFileSync(json, 'utf8')) as Report,
          wallMs: Math.round(performance.now() - t0),
          lanes: lanes === undefined ? null : Number(lanes),
        });
      } catch (e) {
        reject(new Error(`certify ${args.join(' ')} wrote no report: ${(e as Error).message}`));
      }
    });
  });
}

/** certify's queue: longest expected first, each lane taking the next scenario when its last one ends. */
function schedule(order: number[], ms: (i: number) => number, lanes: number): { lane: number; start: number; end: number }[] {
  const free = Array.from({ length: lanes }, () => 0);
  const out: { lane: number; start: number; end: number }[] = [];
  for (const i of order) {
    const lane = free.indexOf(Math.min(...free));
    out[i] = { lane: lane + 1, start: free[lane]!, end: free[lane]! + ms(i) };
    free[lane] = out[i]!.end;
  }
  return out;
}

export async function catalogFloors(scenarios = 'all'): Promise<FloorsSection> {
  const chosen = scenarios === 'all' ? catalog : catalog.filter((s) => scenarios.split(',').includes(s.name));
  const names = chosen.map((s) => s.name).join(',');
  const inproc = await certify(['--in-process', '--scenarios', names, '--runs', '0'], join(TMP, 'floors-in-process.json'));
  log(`floors: in-process catalog ${(inproc.wallMs / 1000).toFixed(1)} s wall`);
  const proc = await certify(['--webhooks', '--scenarios', names], join(TMP, 'floors-process.json'));
  log(
    `floors: process catalog ${(proc.wallMs / 1000).toFixed(1)} s wall, time scale ${proc.report.time_scale.factor}×, ${proc.lanes ?? '?'} lanes`,
  );
  const lanes = proc.lanes ?? processLanes(availableParallelism());
  const scale = proc.report.time_scale.factor;
  const find = (r: Report, name: string) => r.cases.find((c) => c.name === name);
  const expected = chosen.map(expectedRunMs);
  const order = chosen.map((_, i) => i).sort((a, b) => expected[b]! - expected[a]! || a - b);
  const floor = (i: number) => find(inproc.report, chosen[i]!.name)?.run_ms ?? 0;
  const wall = (i: number) => find(proc.report, chosen[i]!.name)?.wall_ms ?? 0;
  const replay = schedule(order, wall, lanes);
  const floorOnly = schedule(order, (i) => floor(i) * scale, lanes);
  const rows: FloorRow[] = chosen.map((s, i) => ({
    scenario: s.name,
    expectedMs: expected[i]!,
    floorMs: find(inproc.report, s.name)?.run_ms ?? null,
    processRunMs: find(proc.report, s.name)?.run_ms ?? null,
    processWallMs: find(proc.report, s.name)?.wall_ms ?? null,
    verdictInProcess: find(inproc.report, s.name)?.verdict ?? 'missing',
    verdictProcess: find(proc.report, s.name)?.verdict ?? 'missing',
    lane: replay[i]!.lane,
    startMs: Math.round(replay[i]!.start),
    endMs: Math.round(replay[i]!.end),
  }));
  return {
    lanes,
    timeScale: scale,
    processWallMs: proc.wallMs,
    rows: order.map((i) => rows[i]!),
    floorScheduleMs: Math.round(Math.max(...floorOnly.map((x) => x.end))),
    replayedScheduleMs: Math.round(Math.max(...replay.map((x) => x.end))),
    sumFloorMs: rows.reduce((a, r) => a + (r.floorMs ?? 0), 0),
    sumWallMs: rows.reduce((a, r) => a + (r.processWallMs ?? 0), 0),
  };
}

export function floorsMarkdown(f: FloorsSection | undefined): string[] {
  if (!f) return [];
  const s = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(2)} s`);
  const L = ["### The catalog: each scenario's floor and the lane schedule (issue 22)", ''];
  L.push(
    `Floor: the scenario's run time on the virtual clock in process (the time its own timers need; a client costs nothing to start there). Through processes: \`certify --webhooks\`, ${f.lanes} lanes, time scale ${f.timeScale}×, ${s(f.processWallMs)} from spawn to exit. Rows in certify's order (longest expected first); lane, start and end replay that queue with the measured walls. Sum of floors ${s(f.sumFloorMs)}, sum of walls ${s(f.sumWallMs)}; the longest lane would be ${s(f.floorScheduleMs)} if every scenario took only its floor × the time scale, and is ${s(f.replayedScheduleMs)} with the measured walls.`,
    '',
    '| scenario | expected (order) | floor | through processes: run / wall | wall − floor × scale | verdicts (in process / processes) | lane | start → end |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of f.rows) {
    const over = r.processWallMs !== null && r.floorMs !== null ? r.processWallMs - r.floorMs * (f.timeScale ?? 1) : null;
    L.push(
      `| ${r.scenario} | ${s(r.expectedMs)} | ${s(r.floorMs)} | ${s(r.processRunMs)} / ${s(r.processWallMs)} | ${s(over)} | ${r.verdictInProcess} / ${r.verdictProcess} | ${r.lane} | ${s(r.startMs)} → ${s(r.endMs)} |`,
    );
  }
  L.push('');
  return L;
}
