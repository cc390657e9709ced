import type { InProcessClientFactory } from '../../contract/client-protocol.js';
import type { Scenario } from '../../scenarios/index.js';
import { check, RunEvidenceSchema, type RunEvidence, type Verdict } from '../checker/index.js';
import type { RunDriver } from './driver.js';
import { executeScenario, type ExecuteOptions } from './execute.js';
import { InProcessDriver } from './in-process/in-process-driver.js';
import { ProcessDriver } from './process/process-driver.js';

export interface ScenarioRun {
  scenario: string;
  verdict: Verdict;
  evidence: RunEvidence;
  timedOut: boolean;
  /** Every invariant the scenario exists to probe was not applicable: the run tested nothing (e.g. no job created). */
  vacuous: boolean;
  /** Run-clock time (virtual for in-process runs). */
  runMs: number;
  /** Wall time this run took. */
  wallMs: number;
  diagnostics: string[];
}

async function runWith(s: Scenario, driver: RunDriver, opts: ExecuteOptions): Promise<ScenarioRun> {
  const wall = Date.now();
  try {
    const result = await executeScenario(s, driver, opts);
    const evidence = RunEvidenceSchema.parse(result.evidence);
    const verdict = check(evidence);
    const vacuous = s.invariants.every((id) => verdict.invariants.find((i) => i.id === id)?.status !== 'held' && verdict.invariants.find((i) => i.id === id)?.status !== 'broken');
    return { scenario: s.name, verdict, evidence, timedOut: result.timedOut, vacuous, runMs: result.durationMs, wallMs: Date.now() - wall, diagnostics: driver.diagnostics() };
  } finally {
    await driver.close();
  }
}

/** One scenario against a client command, as real processes over loopback. */
export async function runScenarioProcess(s: Scenario, command: string, opts: ExecuteOptions & { token?: string } = {}): Promise<ScenarioRun> {
  // Real processes are scheduled by a kernel shared with other work: a worker may wake late by a second or so.
  const tolerances = { deadline_grace_ms: 2500, retry_after_tolerance_ms: 250, clock_tolerance_ms: 100, ...opts.tolerances };
  return runWith(s, await ProcessDriver.start({ command, scenario: s, token: opts.token }), { ...opts, tolerances });
}

/** One scenario against a TypeScript client object, in-process on a virtual clock. */
export async function runScenarioInProcess(
  s: Scenario,
  factory: InProcessClientFactory,
  opts: ExecuteOptions & { seed?: number; token?: string } = {},
): Promise<ScenarioRun> {
  return runWith(s, new InProcessDriver({ factory, scenario: s, seed: opts.seed, token: opts.token }), opts);
}
