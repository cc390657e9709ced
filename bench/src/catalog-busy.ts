import { type ChildProcess, spawn } from 'node:child_process';
import { type CatalogSample, catalogThroughProcessRunner } from './conformance-speed.js';
import { loadAverage, log, median } from './common.js';
import type { Results, TargetRow } from './report.js';

/**
 * Issue 22 item 2: the whole catalog through processes beside two busy loops (one per core on the bench machine),
 * as a certification runs on a CI box that is doing something else. The calibration stretches the scenario times by
 * what the crowded machine needs, so the figure is the wall time a team waits, and every verdict must stay a pass.
 */
export interface BusyCatalogSection {
  /** Busy loops beside the catalog (plain `for (;;)` Node processes, started before it, killed after). */
  loops: number;
  samples: CatalogSample[];
  wallS: number;
  loadavg: { before: number[]; after: number[] };
}

function busyLoop(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

export async function catalogBesideBusyLoops(opts: { runs: number; scenarios: string; loops?: number }): Promise<BusyCatalogSection> {
  const loops = opts.loops ?? 2;
  const before = loadAverage();
  const samples: CatalogSample[] = [];
  for (let i = 0; i < opts.runs; i++) {
    const hogs = Array.from({ length: loops }, busyLoop);
    try {
      const c = await catalogThroughProcessRunner(opts.scenarios);
      samples.push(c);
      log(
        `busy: catalog beside ${loops} busy loops ${i + 1}/${opts.runs}: ${(c.wallMs / 1000).toFixed(1)} s wall, exit ${c.exitCode}: ${c.summary}`,
      );
    } finally {
      for (const h of hogs) h.kill('SIGKILL');
    }
  }
  return {
    loops,
    samples,
    wallS: Math.round(median(samples.map((c) => c.wallMs))) / 1000,
    loadavg: { before, after: loadAverage() },
  };
}

const BUSY_MUST = 2;

/** The catalog beside two busy loops against the quiet median of the same run: "no more than 2× that". */
export function busyRow(r: Omit<Results, 'targets'>): TargetRow {
  const target = 'whole catalog through processes beside two busy loops, against the quiet catalog';
  const b = r.busy;
  const quiet = r.conformance?.config.scenarios === 'all' ? r.conformance.catalogWallS : null;
  if (!b) return { target, measured: 'not run (--only)', must: `≤ ${BUSY_MUST}× quiet`, met: null };
  const passed = b.samples.every((x) => x.exitCode === 0);
  const ratio = quiet ? Math.round((b.wallS / quiet) * 100) / 100 : null;
  return {
    target,
    must: `≤ ${BUSY_MUST}× quiet, verdicts unchanged`,
    measured: `${b.wallS.toFixed(1)} s beside ${b.loops} busy loops (median of ${b.samples.length}${passed ? ', all passed' : ', NOT all passed'})${ratio === null ? '' : `; ${ratio}× the quiet ${quiet!.toFixed(1)} s`}; ${b.samples.map((x) => x.summary).join('; ')}`,
    met: ratio === null ? null : ratio <= BUSY_MUST && passed,
  };
}

/** Section 2's busy-loop runs. */
export function busyMarkdown(b: BusyCatalogSection | undefined): string[] {
  if (!b) return [];
  return [
    `The same catalog beside ${b.loops} busy loops (\`node -e "for (;;) {}"\`, one per core, started before certify and killed after it): certify calibrates under that load, so the time scale says how much the crowded machine stretched the scenarios.`,
    '',
    '| busy-loop catalog run | wall | exit | summary |',
    '| --- | --- | --- | --- |',
    ...b.samples.map((x, i) => `| ${i + 1} | ${(x.wallMs / 1000).toFixed(1)} s | ${x.exitCode} | ${x.summary} |`),
    '',
    `Load average during these runs: ${b.loadavg.before.join(' / ')} → ${b.loadavg.after.join(' / ')}.`,
    '',
  ];
}
