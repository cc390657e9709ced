import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { prepareDrawn } from '../../src/conformance/property-lanes.js';
import { propertyRun } from '../../src/conformance/property-run.js';
import type { InProcessClientFactory } from '../../src/contract/client-protocol.js';
import { createInMemoryReferenceClient } from '../../src/reference-client/index.js';
import { mutants } from '../../test/conformance/mutants/mutants.js';
import { loadAverage, log, median } from './common.js';

/**
 * Search power (issue 22): how fast random fault schedules cover the catalog's fault space, and how soon a random run
 * catches each deliberately broken client of test/conformance/mutants/. A change that makes the search slower or
 * blinder shows up here as a number: fewer schedules per CPU second, or more schedules before a mutant is caught.
 */
export interface SearchPowerConfig {
  /** Schedules of the throughput run (the reference client, one thread). */
  runs: number;
  seed: number;
  /** The fixed seed set each mutant is hunted with. */
  seeds: number[];
  /** Schedules a hunt may draw before the mutant counts as not caught from that seed. */
  cap: number;
}

export interface Throughput {
  schedules: number;
  wallMs: number;
  cpuMs: number;
  /** Schedules per wall second, and per CPU second of the one thread (the figure a loaded machine disturbs least). */
  perSecond: number;
  perCpuSecond: number;
  failed: boolean;
  crashed?: string;
}

export interface Hunt {
  seed: number;
  /** Schedules drawn up to and including the first failing one; null: not caught within the cap. */
  schedules: number | null;
  cpuMs: number;
  wallMs: number;
  /** Invariants the catching schedule broke. */
  broken: string[];
}

export interface MutantCatch {
  mutant: string;
  caughtBy: string;
  hunts: Hunt[];
  caught: number;
  /** Over the seeds; a seed that did not catch it counts as the cap (so the worst is then "> cap"). */
  medianSchedules: number;
  worstSchedules: number;
  medianCpuMs: number;
  worstCpuMs: number;
  crashed?: string;
}

export interface SearchPowerSection {
  config: SearchPowerConfig;
  node: string;
  throughput: Throughput;
  mutants: MutantCatch[];
  loadavg: { before: number[]; after: number[] };
}

const prepare = prepareDrawn({ timeScale: 1, webhooks: true });
const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

async function throughput(runs: number, seed: number): Promise<Throughput> {
  const cpu0 = cpuNow();
  const t0 = performance.now();
  let n = 0;
  const r = await propertyRun({ kind: 'in-process', factory: createInMemoryReferenceClient }, { runs, seed, prepare, onRun: () => n++ });
  const wallMs = performance.now() - t0;
  const cpuMs = cpuNow() - cpu0;
  return {
    schedules: n,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round(cpuMs),
    perSecond: Math.round((n / (wallMs / 1000)) * 10) / 10,
    perCpuSecond: Math.round((n / (cpuMs / 1000)) * 10) / 10,
    failed: r.failed,
  };
}

/** Draw schedules from `seed` until the first one fails (shrinking skipped: every candidate answers "passes"). */
async function hunt(factory: InProcessClientFactory, seed: number, cap: number): Promise<Hunt> {
  const cpu0 = cpuNow();
  const t0 = performance.now();
  let found: Hunt | undefined;
  await propertyRun(
    { kind: 'in-process', factory },
    {
      runs: cap,
      seed,
      prepare,
      shrinkBudgetMs: 0,
      onRun: (_n, run, _s, position) => {
        if (found || position === undefined || run.outcome.verdict !== 'fail') return;
        found = {
          seed,
          schedules: position + 1,
          cpuMs: Math.round(cpuNow() - cpu0),
          wallMs: Math.round(performance.now() - t0),
          broken: run.verdict.invariants.filter((i) => i.status === 'broken').map((i) => i.id),
        };
      },
    },
  );
  return found ?? { seed, schedules: null, cpuMs: Math.round(cpuNow() - cpu0), wallMs: Math.round(performance.now() - t0), broken: [] };
}

function summarise(name: string, caughtBy: string, hunts: Hunt[], cap: number): MutantCatch {
  const schedules = hunts.map((h) => h.schedules ?? cap);
  const cpu = hunts.map((h) => h.cpuMs);
  return {
    mutant: name,
    caughtBy,
    hunts,
    caught: hunts.filter((h) => h.schedules !== null).length,
    medianSchedules: median(schedules),
    worstSchedules: Math.max(...schedules),
    medianCpuMs: Math.round(median(cpu)),
    worstCpuMs: Math.max(...cpu),
  };
}

const SELF = fileURLToPath(import.meta.url);

/** One child per job (the throughput run, or one mutant's hunts): a stray error in one does not end the bench. */
function child<T>(args: string[], fallback: (why: string) => T): Promise<T> {
  return new Promise((resolve) => {
    const c = fork(SELF, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let got: T | undefined;
    let err = '';
    c.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    c.on('message', (m) => (got = m as T));
    c.once('exit', (code, sig) => resolve(got ?? fallback(`exit ${code ?? sig}: ${err.trim().split('\n').slice(-3).join(' | ')}`)));
  });
}

if (process.argv[1] === SELF && process.argv[2]) {
  const [, , job, a, b, c] = process.argv;
  // Errors escaping a broken client's run must not end the hunt; they are the mutant's, not the bench's.
  process.on('unhandledRejection', () => {});
  let out: unknown;
  if (job === 'throughput') out = await throughput(Number(a), Number(b));
  else {
    const m = mutants.find((x) => x.name === a)!;
    const seeds = b!.split(',').map(Number);
    const hunts: Hunt[] = [];
    for (const seed of seeds) hunts.push(await hunt(m.factory, seed, Number(c)));
    out = summarise(m.name, m.caughtBy, hunts, Number(c));
  }
  process.send!(out, () => process.exit(0));
}

export async function searchPower(cfg: SearchPowerConfig): Promise<SearchPowerSection> {
  const before = loadAverage();
  // The throughput run alone, so that it has a core to itself as far as this bench is concerned.
  const t = await child<Throughput>(['throughput', String(cfg.runs), String(cfg.seed)], (why) => ({
    ...{ schedules: 0, wallMs: 0, cpuMs: 0, perSecond: NaN, perCpuSecond: NaN, failed: true },
    crashed: why,
  }));
  log(`search power: ${t.schedules} schedules in ${(t.wallMs / 1000).toFixed(1)} s = ${t.perSecond}/s wall, ${t.perCpuSecond}/CPU s`);
  const results: MutantCatch[] = new Array(mutants.length);
  let next = 0;
  const lanes = Math.max(1, Math.min(availableParallelism(), mutants.length));
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < mutants.length) {
        const i = next++;
        const m = mutants[i]!;
        const r = await child<MutantCatch>(['mutant', m.name, cfg.seeds.join(','), String(cfg.cap)], (why) => ({
          ...summarise(m.name, m.caughtBy, [], cfg.cap),
          crashed: why,
        }));
        results[i] = r;
        log(
          `search power: ${m.name}: caught from ${r.caught}/${cfg.seeds.length} seeds; schedules to catch median ${r.medianSchedules}, worst ${r.caught < cfg.seeds.length ? `> ${cfg.cap}` : r.worstSchedules}; CPU median ${r.medianCpuMs} ms${r.crashed ? ` (CRASHED ${r.crashed})` : ''}`,
        );
      }
    }),
  );
  return { config: cfg, node: process.version, throughput: t, mutants: results, loadavg: { before, after: loadAverage() } };
}
