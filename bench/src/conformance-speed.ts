import { fork, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { propertyRun } from '../../src/conformance/property-run.js';
import { createReferenceClient } from '../../src/reference-client/index.js';
import { catalog } from '../../src/scenarios/index.js';
import { CLI, loadAverage, log, median, ROOT } from './common.js';

export interface ConformanceConfig {
  /** Schedules per property run. */
  runs: number;
  /** One property run per seed; the figure is the median over seeds. */
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

/** The property run against the reference client, in-process on the virtual clock. */
async function propertySpeed(runs: number, seed: number): Promise<PropertySample> {
  let n = 0;
  const t0 = performance.now();
  const r = await propertyRun({ kind: 'in-process', factory: createReferenceClient }, { runs, seed, onRun: () => n++ });
  const wallMs = performance.now() - t0;
  return {
    seed,
    schedules: n,
    wallMs: Math.round(wallMs),
    perSecond: Math.round((n / (wallMs / 1000)) * 10) / 10,
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
function catalogThroughProcessRunner(scenarios: string): Promise<CatalogSample> {
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
      `conformance: property run seed ${seed}: ${s.crashed ? `CRASHED ${s.crashed}` : `${s.schedules} schedules in ${(s.wallMs / 1000).toFixed(1)} s = ${s.perSecond}/s`}${s.failed ? ' (failed: shrinking included)' : ''}${s.escaped ? ` (${s.escaped} errors escaped: ${s.firstEscaped})` : ''}`,
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
