import type { InProcessClientFactory } from '../contract/client-protocol.js';
import type { Scenario } from '../scenarios/index.js';
import { laneStaggerMs } from './calibrate.js';
import type { ClientDialect } from './dialect/batch-input.js';
import type { ProfileTarget } from './dialect/profile-input.js';
import { longestFirst } from './expected-time.js';
import { runInLanes, type ScenarioDriver } from './pipeline/lanes.js';
import { runScenarioInProcess, runScenarioProcess, type ScenarioRun } from './runner/run-scenario.js';

/** Who is under test: a command (process runner) or a TypeScript factory (in-process runner). */
export type ClientUnderTest =
  | {
      kind: 'process';
      command: string;
      /** The calibrated (or given) time scale the scenarios were stretched by. */
      timeScale?: number;
      /** The wire dialect the client speaks (JOBPROOF_DIALECT); default native. */
      dialect?: ClientDialect;
      /** The API profile the client speaks (JOBPROOF_DIALECT=<profile>) and the provider serves. */
      profile?: ProfileTarget;
    }
  | { kind: 'in-process'; factory: InProcessClientFactory; profile?: ProfileTarget };

export interface CatalogRunOptions {
  /** Scenarios run at once (each has its own provider, port and state); process runs default to the core count. */
  parallel?: number;
  seed?: number;
  onResult?: (run: ScenarioRun, index: number, total: number) => void;
  onStart?: (scenario: Scenario, index: number, total: number) => void;
}

/**
 * Lanes for a catalog of client processes: twice the cores, at most 8. A scenario spends most of its time waiting on
 * its timers and the client's, so two lanes per core keep the cores busy; the time scale is calibrated with that many
 * lanes' client starts, and when they need a stretch, fewer lanes are calibrated too and the faster pair is taken
 * (`calibrateLanes`). Four per core (`--parallel 8` on 2 cores) ends the catalog sooner on a quiet machine, but as a
 * default it crowded whatever else the machine ran (decision 022): more lanes are the user's choice.
 */
export function processLanes(cores: number): number {
  return Math.max(1, Math.min(8, 2 * cores));
}

export function runOne(client: ClientUnderTest, s: Scenario, seed?: number): Promise<ScenarioRun> {
  return client.kind === 'process'
    ? runScenarioProcess(s, client.command, { timeScale: client.timeScale, dialect: client.dialect, profile: client.profile })
    : runScenarioInProcess(s, client.factory, { seed, profile: client.profile });
}

/**
 * Run scenarios, a few at a time, reporting each as it ends; results come back in the catalog's order. With more
 * than one lane the longest expected runs start first, so that no lane is left with a long run at the end while the
 * others idle (the catalog's wall time is its slowest lane).
 */
export async function runCatalog(
  client: ClientUnderTest,
  scenarios: readonly Scenario[],
  opts: CatalogRunOptions = {},
): Promise<ScenarioRun[]> {
  const lanes = Math.max(1, Math.min(opts.parallel ?? 1, scenarios.length));
  return runInLanes(scenarios, jobDriver(client, opts.seed), {
    lanes,
    // Process lanes start spread out as the calibration measured them; in process a start costs nothing.
    staggerMs: client.kind === 'process' ? laneStaggerMs(lanes) : 0,
    order: lanes > 1 ? longestFirst(scenarios) : undefined,
    onStart: (s, i) => opts.onStart?.(s, i, scenarios.length),
    onResult: (r, done) => opts.onResult?.(r, done, scenarios.length),
  });
}

/** The jobs suite's driver: one catalog scenario through the process or in-process runner. */
export function jobDriver(client: ClientUnderTest, seed?: number): ScenarioDriver<Scenario, ScenarioRun> {
  return { kind: client.kind, run: (s) => runOne(client, s, seed) };
}
