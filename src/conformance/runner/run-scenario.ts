import type { InProcessClientFactory } from '../../contract/client-protocol.js';
import type { Scenario } from '../../scenarios/index.js';
import { checkParsed, parseLiveEvidence, type RunEvidence, type Verdict } from '../checker/index.js';
import type { RunDriver } from './driver.js';
import { executeScenario, type ExecuteOptions } from './execute.js';
import { runOutcome, type CaseOutcome } from '../outcome.js';
import { InProcessDriver } from './in-process/in-process-driver.js';
import { ProcessDriver } from './process/process-driver.js';
import { withProtocolErrors } from './protocol-outcome.js';

export interface ScenarioRun {
  scenario: string;
  verdict: Verdict;
  evidence: RunEvidence;
  timedOut: boolean;
  /** Every invariant the scenario exists to probe was not applicable: the run tested nothing (e.g. no job created). */
  vacuous: boolean;
  /** The run as a certification case (pass / fail / not_exercised), with the reason. */
  outcome: CaseOutcome;
  /** Run-clock time (virtual for in-process runs). */
  runMs: number;
  /** Wall time this run took. */
  wallMs: number;
  diagnostics: string[];
  /** One line per operation whose record could not be read (or why the run ended early): the case's failure. */
  protocolErrors?: string[];
}

async function runWith(s: Scenario, driver: RunDriver, opts: ExecuteOptions): Promise<ScenarioRun> {
  const wall = Date.now();
  try {
    const result = await executeScenario(s, driver, opts);
    const evidence = parseLiveEvidence(result.evidence);
    // Parsed once: the judge reads the same parsed evidence the report keeps (a second parse was ~1 % of a schedule).
    const judged = checkParsed(evidence);
    const { vacuous, ...judgedOutcome } = runOutcome(s, judged, evidence, result.timedOut);
    const errors = driver.protocolErrors?.() ?? new Map<string, string>();
    const { verdict, outcome, lines } = withProtocolErrors(judged, judgedOutcome, errors, result.stopReason);
    return {
      scenario: s.name,
      verdict,
      evidence,
      timedOut: result.timedOut,
      vacuous,
      outcome,
      runMs: result.durationMs,
      wallMs: Date.now() - wall,
      diagnostics: driver.diagnostics(),
      ...(lines.length ? { protocolErrors: lines } : {}),
    };
  } finally {
    await driver.close();
  }
}

/**
 * The grace for lateness at 1× through real processes (conformance.md, "Time scale"); in process, on a virtual
 * clock, it is CheckOptions' 1 s. Processes are scheduled by a kernel shared with other work: a worker wakes, starts
 * or commits later than the calibration measures, by up to about a second on a loaded machine, so a 1 s grace would
 * make a correct client's verdict depend on the load.
 */
export const PROCESS_LATENESS_GRACE_MS = 2500;

/** One scenario against a client command, as real processes over loopback. */
export async function runScenarioProcess(
  s: Scenario,
  command: string,
  opts: ExecuteOptions & { token?: string; timeScale?: number } = {},
): Promise<ScenarioRun> {
  // The calibrated time scale (which already stretched the scenario) stretches the grace for lateness too: lateness
  // is judged against what the client could do under this load.
  const f = Math.max(1, opts.timeScale ?? 1);
  const tolerances = {
    deadline_grace_ms: Math.round(PROCESS_LATENESS_GRACE_MS * f),
    retry_after_tolerance_ms: 250,
    clock_tolerance_ms: Math.round(100 * f),
    ...opts.tolerances,
  };
  const driver = await ProcessDriver.start({ command, scenario: s, token: opts.token, dialect: opts.dialect, profile: opts.profile });
  return runWith(s, driver, { ...opts, tolerances });
}

/** One scenario against a TypeScript client object, in-process on a virtual clock. */
export async function runScenarioInProcess(
  s: Scenario,
  factory: InProcessClientFactory,
  opts: ExecuteOptions & { seed?: number; token?: string } = {},
): Promise<ScenarioRun> {
  const driver = new InProcessDriver({ factory, scenario: s, seed: opts.seed, token: opts.token, profile: opts.profile?.profile });
  return runWith(s, driver, opts);
}
