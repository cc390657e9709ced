import type { Scenario } from '../../scenarios/index.js';
import type { CaseVerdict } from '../outcome.js';
import { failureLines } from '../report/build.js';
import type { ReportCase } from '../report/schema.js';
import type { ScenarioRun } from '../runner/run-scenario.js';

export { notApplicableIn } from '../dialect/applicability.js';

export const NO_WEBHOOKS = 'client does not listen for webhooks';

/**
 * A client that does not listen for webhooks (client-protocol.md): a webhook scenario runs on polling alone and is
 * judged on what polling can show; one that tests nothing but webhook handling (I13 only) is skipped.
 */
export function forWebhooks(s: Scenario, webhooks: boolean): { run: Scenario } | { skip: string } {
  if (!s.webhooks || webhooks) return { run: s };
  if (s.invariants.every((id) => id === 'I13')) return { skip: NO_WEBHOOKS };
  return { run: { ...s, webhooks: false } };
}

export function scenarioCase(run: ScenarioRun): ReportCase {
  return {
    kind: 'scenario',
    name: run.scenario,
    verdict: run.outcome.verdict,
    reason: run.outcome.reason,
    failures: failureLines(run),
    invariants: Object.fromEntries(run.verdict.invariants.map((i) => [i.id, i.status])),
    time_bound_hit: run.timedOut,
    run_ms: run.runMs,
    wall_ms: run.wallMs,
    diagnostics: run.diagnostics,
    schedules: null,
  };
}

export function skippedCase(
  name: string,
  reason: string,
  verdict: Extract<CaseVerdict, 'skipped' | 'not_applicable'> = 'skipped',
): ReportCase {
  return {
    kind: 'scenario',
    name,
    verdict,
    reason,
    failures: [],
    invariants: {},
    time_bound_hit: false,
    run_ms: null,
    wall_ms: 0,
    diagnostics: [],
    schedules: null,
  };
}
