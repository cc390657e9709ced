import { fork, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Lanes from '../../src/conformance/property-lanes.js';
import { catalog } from '../../src/scenarios/index.js';
import { CLI, loadAverage, log, median, ROOT } from './common.js';

export interface ConformanceConfig {
  /** Schedules per property run: enough for a steady state (warm-up is a fixed cost of ~1 s per lane). */
  runs: number;
  /** One property run per entry (a seed may repeat); the figure is the median over them. */
  seeds: number[];
  catalogRuns: number;
  /** `all`, or scenario names joined by commas (a quick pass uses a few). */
  scenarios: string;
}

export interface PropertySample {
  seed: number;
  /** Schedules executed, counting any shrink steps. */
  schedules: number;
  wallMs: number;
  perSecond: number;
  /** CPU time of the whole process (every lane's thread) per schedule. */
  cpuMsPerSchedule: number;
  lanes: number;
  failed: boolean;
  /**
   * Errors that escaped the run (unhandled rejections / uncaught exceptions) in the child that ran it. The child
   * counts them and carries on, so that one stray promise does not end the benchmark; the first message is kept.
   */
  escaped: number;
  firstEscaped?: string;
  /** The child died before reporting. */
  crashed?: string;
}

export interface CatalogSample {
  wallMs: number;
  exitCode: number | null;
  summary: string;
}

export interface ConformanceSection {
  config: ConformanceConfig;
  scenarios: number;
  property: PropertySample[];
  schedulesPerSecond: number;
  catalog: CatalogSample[];
  catalogWallS: number;
  loadavg: { before: number[]; after: number[] };
}

const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href;

/**
 * The random schedules exactly as `jobproof certify --in-process --runs N --seed S` runs them: the built package's
 * property lanes (one worker thread per core) and the in-memory reference client, loaded from dist/ as certify does.
 */
async function propertySpeed(runs: number, seed: number): Promise<PropertySample> {
  const { propertyRunLanes } = (await import(dist('conformance/property-lanes.js'))) as typeof Lanes;
  const lanes = availableParallelism();
  let n = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await propertyRunLanes(
    { module: dist('reference-client/index.js'), name: 'createInMemoryReferenceClient' },
    { runs, seed, lanes, onProgress: () => n++ },
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    seed,
    schedules: n,
    wallMs: Math.round(wallMs),
    perSecond: Math.round((n / (wallMs / 1000)) * 10) / 10,
    cpuMsPerSchedule: Math.round(((cpu.user + cpu.system) / 1000 / Math.max(1, n)) * 10) / 10,
    lanes,
    failed: r.failed,
    escaped: 0,
  };
}

const SELF = fileURLToPath(import.meta.url);

/** Each property run in its own process: an error escaping the project's code must not end the benchmark. */
function propertyInChild(runs: number, seed: number): Promise<PropertySample> {
  return new Promise((resolve) => {
    const child = fork(SELF, ['property', String(runs), String(seed)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let got: PropertySample | undefined;
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    child.on('message', (m) => (got = m as PropertySample));
    // Bounded: a run stuck after an escaped error is reported as such, not waited on for ever.
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.once('exit', () => clearTimeout(timer));
    child.once('exit', (code, sig) =>
      resolve(
        got ?? {
          seed,
          schedules: 0,
          wallMs: 0,
          perSecond: NaN,
          cpuMsPerSchedule: NaN,
          lanes: 0,
          failed: true,
          escaped: 0,
          crashed: `exit ${code ?? sig}: ${err.trim().split('\n').slice(-3).join(' | ')}`,
        },
      ),
    );
  });
}

if (process.argv[1] === SELF && process.argv[2] === 'property') {
  let escaped = 0;
  let firstEscaped: string | undefined;
  const note = (e: unknown) => {
    escaped++;
    firstEscaped ??= ((e as Error)?.stack ?? String(e)).split('\n').slice(0, 3).join(' | ');
  };
  process.on('unhandledRejection', note);
  process.on('uncaughtException', note);
  const s = await propertySpeed(Number(process.argv[3]), Number(process.argv[4]));
  process.send!({ ...s, escaped, firstEscaped }, () => process.exit(0));
}

/** `jobproof certify --webhooks` through the process runner (default lanes), timed from spawn to exit. */
export function catalogThroughProcessRunner(scenarios: string): Promise<CatalogSample> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CLI, 'certify', '--webhooks', '--scenarios', scenarios], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const summary =
        out
          .trim()
          .split('\n')
          .filter((l) => /^(PASSED|FAILED)/.test(l))
          .at(-1) ??
        out.trim().split('\n').at(-1) ??
        '';
      resolve({ wallMs: Math.round(performance.now() - t0), exitCode: code, summary });
    });
  });
}

export async function conformanceSpeed(cfg: ConformanceConfig): Promise<ConformanceSection> {
  const before = loadAverage();
  const property: PropertySample[] = [];
  for (const seed of cfg.seeds) {
    const s = await propertyInChild(cfg.runs, seed);
    property.push(s);
    log(
      `conformance: property run seed ${seed}: ${s.crashed ? `CRASHED ${s.crashed}` : `${s.schedules} schedules in ${(s.wallMs / 1000).toFixed(1)} s on ${s.lanes} lanes = ${s.perSecond}/s, ${s.cpuMsPerSchedule} ms CPU each`}${s.failed ? ' (failed: shrinking included)' : ''}${s.escaped ? ` (${s.escaped} errors escaped: ${s.firstEscaped})` : ''}`,
    );
  }
  const catalogSamples: CatalogSample[] = [];
  for (let i = 0; i < cfg.catalogRuns; i++) {
    const c = await catalogThroughProcessRunner(cfg.scenarios);
    catalogSamples.push(c);
    log(
      `conformance: catalog via process runner ${i + 1}/${cfg.catalogRuns}: ${(c.wallMs / 1000).toFixed(1)} s wall, exit ${c.exitCode}: ${c.summary}`,
    );
  }
  return {
    config: cfg,
    scenarios: cfg.scenarios === 'all' ? catalog.length : cfg.scenarios.split(',').length,
    property,
    schedulesPerSecond: median(property.map((p) => p.perSecond)),
    catalog: catalogSamples,
    catalogWallS: Math.round(median(catalogSamples.map((c) => c.wallMs))) / 1000,
    loadavg: { before, after: loadAverage() },
  };
}
