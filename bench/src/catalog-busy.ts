import { type ChildProcess, spawn } from 'node:child_process';
import { type CatalogSample, catalogThroughProcessRunner } from './conformance-speed.js';
import { loadAverage, log, median } from './common.js';

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
