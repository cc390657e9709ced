import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ClientUnderTest } from '../catalog-run.js';
import { prepareDrawn, propertyRunLanes, type FactoryModule } from '../property-lanes.js';
import { propertyRun, type PropertyRunResult } from '../property-run.js';
import { failureLines, schedulesCase } from '../report/build.js';
import type { ReportCase } from '../report/schema.js';
import type { ScenarioRun } from '../runner/run-scenario.js';
import type { Shard } from '../shard.js';

export interface SchedulesOptions {
  client: ClientUnderTest;
  runs: number;
  seed: number;
  shard?: Shard;
  /** Worker threads for an in-process client (1: this thread); they load it from `module`. */
  lanes: number;
  module?: FactoryModule;
  /** fast-check replay path: one schedule, always on this thread. */
  path?: string;
  factor: number;
  webhooks: boolean;
  /** Where to write the minimal failing schedule (none: it is only reported). */
  minimalOut?: string;
  /** `--client` as given, for the replay lines. */
  clientFlag?: string;
  /** `--shrink-time` in ms (unbounded when absent); in-process lanes shrink in seconds and take none. */
  shrinkBudgetMs?: number;
}

export interface SchedulesOutcome {
  case: ReportCase;
  /** The shrunk failing schedule's run (the HTML certificate draws it). */
  counterexample?: ScenarioRun;
  /** Where the minimal failing schedule was written. */
  minimalOut?: string;
  property: PropertyRunResult;
}

/** `certify --runs N`: the seeded random fault schedules, with progress lines, and a failure shrunk, written and replayable. */
export async function certifySchedules(o: SchedulesOptions, out: (line: string) => void): Promise<SchedulesOutcome> {
  const inProcess = o.client.kind === 'in-process';
  // In-process, the reference client runs on worker threads (a replay of one --path stays on this one).
  const onLanes = inProcess && o.module !== undefined && o.path === undefined && o.lanes > 1;
  out(
    `\nrandom schedules: ${o.runs} (seed ${o.seed}, time scale ${o.factor}×, webhooks ${o.webhooks ? 'on' : 'off'}${onLanes ? `, ${o.lanes} lanes` : ''})…`,
  );
  const progress = (n: number) => {
    if (n % 50 === 0) out(`  ${n} schedules run`);
  };
  // Through processes a schedule takes seconds and a shrink can take hundreds of them: say at once that one failed
  // and what broke, then count the shrinking candidates apart from the schedules of the sequence.
  let shrinkTried = 0;
  let shrinkFailing = 0;
  const onRun = (n: number, run: ScenarioRun, _s: unknown, position?: number) => {
    if (position === undefined) {
      shrinkTried++;
      if (run.outcome.verdict === 'fail') shrinkFailing++;
      if (shrinkTried % 10 === 0) out(`  shrinking: ${shrinkTried} smaller schedules tried, ${shrinkFailing} of them still fail`);
      return;
    }
    if (run.outcome.verdict === 'fail') {
      out(`  schedule ${position + 1} FAILED: ${failureLines(run)[0] ?? run.outcome.reason ?? 'see below'}`);
      out('  shrinking it to a minimal failing schedule (each candidate is a full run; ends by itself)…');
    }
    progress(n);
  };
  // A drawn schedule as forWebhooks treats a catalog one (a webhook-only schedule runs on polling), time-scaled.
  const prepare = prepareDrawn({ timeScale: o.factor, webhooks: o.webhooks });
  const p: PropertyRunResult = onLanes
    ? await propertyRunLanes(o.module!, {
        runs: o.runs,
        seed: o.seed,
        shard: o.shard,
        lanes: o.lanes,
        schedule: { timeScale: o.factor, webhooks: o.webhooks },
        onProgress: progress,
      })
    : await propertyRun(o.client, {
        ...{ runs: o.runs, seed: o.seed, path: o.path, prepare, shard: o.shard, onRun },
        shrinkBudgetMs: o.shrinkBudgetMs,
      });
  const sc = schedulesCase(p);
  if (!p.failed || !p.counterexample) {
    const v = Object.entries(p.verdicts)
      .map(([k, n]) => `${n} ${k.replace('_', ' ')}`)
      .join(', ');
    out(`  ${p.runs} schedules: ${v} (${(p.wallMs / 1000).toFixed(1)} s, ${(p.runs / (p.wallMs / 1000)).toFixed(1)} schedules/s)`);
    return { case: sc, property: p };
  }
  const file = o.minimalOut === undefined ? undefined : resolve(o.minimalOut);
  if (file) writeFileSync(file, JSON.stringify(p.counterexample.scenario, null, 2) + '\n');
  const who = o.clientFlag ? `--client "${o.clientFlag}" ` : inProcess ? '--in-process ' : '';
  out(`  FAILED after ${p.runs} runs, shrunk ${p.numShrinks} times (seed ${p.seed}, path ${p.path})`);
  if (p.shrinkCut)
    out(
      `  shrinking stopped at --shrink-time ${Math.round(o.shrinkBudgetMs! / 1000)} s: the schedule below is the smallest failure found by then, maybe not the minimal one`,
    );
  for (const l of failureLines(p.counterexample.run)) out(`    ${l}`);
  if (file) {
    out(`  minimal schedule written to ${file} (already time-scaled; replay with --time-scale 1)`);
    out(`  replay: npx jobproof certify ${who}--scenario-file ${file} --time-scale 1${o.webhooks && !inProcess ? ' --webhooks' : ''}`);
  }
  out(`      or: npx jobproof certify ${who}--scenarios none --runs 1 --seed ${p.seed} --path ${p.path}`);
  return { case: sc, counterexample: p.counterexample.run, minimalOut: file, property: p };
}
