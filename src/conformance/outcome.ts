import { z } from 'zod';
import type { Scenario } from '../scenarios/index.js';
import type { RunEvidence } from './checker/evidence.js';
import type { Verdict } from './checker/verdict.js';

/**
 * The one verdict vocabulary of a certification, for catalog scenarios, random schedules and task scenarios alike.
 * - pass: every invariant held and the run tested what it exists to test.
 * - fail: an invariant broke, the run hit its time bound, or the client never acted.
 * - not_exercised: the client acted and held every invariant, but took another correct path that the scenario's
 *   fault never met (the reason names the fault); not held against the client, not counted as tested either.
 * - skipped: not run, for a reason given up front (e.g. the client does not listen for webhooks).
 * - not_applicable: meaningless for this client or dialect (an invariant a wire dialect cannot express).
 * Pass rule: no case failed and at least one passed (`pipeline/certified.ts`, the one function that decides).
 */
export const CASE_VERDICTS = ['pass', 'fail', 'not_exercised', 'skipped', 'not_applicable'] as const;
export const CaseVerdictSchema = z.enum(CASE_VERDICTS);
export type CaseVerdict = z.infer<typeof CaseVerdictSchema>;

export interface CaseOutcome {
  verdict: CaseVerdict;
  /** Why, for every verdict but pass. */
  reason: string | null;
}

/** Fault rules of the scenario (request and webhook) that never fired in the run's journal. */
function unfiredRules(s: Scenario, evidence: RunEvidence): string[] {
  const fired = new Set(evidence.journal.flatMap((e) => ('fault' in e && e.fault ? [e.fault.rule_id] : [])));
  // A rule without an id is journaled as rule-N (its place in the plan), as the fault plan's docs say.
  return s.faults.rules.map((r, i) => r.id ?? `rule-${i + 1}`).filter((id) => !fired.has(id));
}

/**
 * A scenario aimed at webhook handling (I13 among a few, webhooks on) where the client answered none of the
 * deliveries it was sent (every one failed at the connection): whatever the plan did to them (duplicates, reversal,
 * forgeries) never met the client, which held I13 by never hearing a webhook. Not held against it (a worker may also
 * exit before a late delivery), but not counted as tested. Deliveries a `drop` fault withheld were never sent.
 */
function webhooksUnheard(s: Scenario, evidence: RunEvidence, verdict: Verdict): string | null {
  const aimsAtI13 = s.webhooks && s.invariants.includes('I13') && s.invariants.length < verdict.invariants.length;
  if (!aimsAtI13) return null;
  const sent = evidence.journal.filter((e) => e.type === 'webhook' && e.outcome !== 'dropped');
  if (sent.length === 0 || sent.some((e) => e.type === 'webhook' && e.status !== null)) return null;
  const first = sent[0]!;
  const why = first.type === 'webhook' && first.error ? ` (first: ${first.error})` : '';
  return (
    `the client answered none of the ${sent.length} webhook deliveries sent to it${why}: a worker that declares ` +
    'webhooks listens on JOBPROOF_WEBHOOK_PORT (client-protocol.md); I13 was held without a webhook ever being heard'
  );
}

/** Judge a run as a case: the invariant verdict, the time bound, and whether the run tested anything. */
export function runOutcome(s: Scenario, verdict: Verdict, evidence: RunEvidence, timedOut: boolean): CaseOutcome & { vacuous: boolean } {
  const probed = s.invariants.map((id) => verdict.invariants.find((i) => i.id === id)?.status);
  const vacuous = probed.every((st) => st !== 'held' && st !== 'broken');
  const broken = verdict.invariants.filter((i) => i.status === 'broken').map((i) => i.id);
  if (broken.length) return { verdict: 'fail', reason: `broken: ${broken.join(' ')}`, vacuous };
  const acted = evidence.journal.some((e) => e.type === 'request' && e.route === 'create' && e.tenant === evidence.principal.tenant);
  if (timedOut) {
    const why = acted ? '' : ' (the client never acted: no create reached the provider)';
    return { verdict: 'fail', reason: `the run hit its time bound before every operation was final${why}`, vacuous };
  }
  // A pause meant to make another worker take over, where none did: the client held every invariant, but the
  // takeover the scenario exists for never happened (e.g. the worker was stopped inside its store's transaction,
  // which holds every other worker back until it resumes). Harness luck, not the client's doing either way.
  // A cancel the scenario sends after the job ended (to meet `409 job_terminal`), where the client sent no cancel:
  // it learnt of the end first (a correct path) and the late cancel was never exercised.
  const lateCancel = s.actions.some(
    (a) => a.type === 'cancel' && a.after?.event === 'job_state' && ['succeeded', 'failed', 'cancelled', 'expired'].includes(a.after.state),
  );
  const cancelSent = evidence.journal.some((e) => e.type === 'request' && e.route === 'cancel' && e.tenant === evidence.principal.tenant);
  if (lateCancel && !cancelSent) {
    return {
      verdict: 'not_exercised',
      reason:
        'the client learnt the job had ended before the late cancel was recorded, so no cancel reached the provider (409 job_terminal not met)',
      vacuous,
    };
  }
  // Only for a scenario that names I9 among a few: a random schedule probes every invariant and is judged on what
  // it showed (its pauses are one fault among many).
  const i9 = verdict.invariants.find((i) => i.id === 'I9')?.status;
  const aimsAtI9 = s.invariants.includes('I9') && s.invariants.length < verdict.invariants.length;
  if (aimsAtI9 && s.actions.some((a) => a.type === 'pause_worker') && i9 === 'not_applicable') {
    return {
      verdict: 'not_exercised',
      reason: "no other worker acted for the operation while the paused worker's lease was lapsed: no takeover to judge (I9)",
      vacuous,
    };
  }
  const unheard = webhooksUnheard(s, evidence, verdict);
  if (unheard) return { verdict: 'not_exercised', reason: unheard, vacuous };
  if (!vacuous) return { verdict: 'pass', reason: null, vacuous };
  if (!acted) {
    return {
      verdict: 'fail',
      reason: `the client never acted: no create reached the provider, so none of ${s.invariants.join(' ')} could be judged`,
      vacuous,
    };
  }
  const unfired = unfiredRules(s, evidence);
  if (unfired.length) {
    return {
      verdict: 'not_exercised',
      reason: `fault ${unfired.join(', ')} never fired: the client took another path, held every invariant, but ${s.invariants.join(' ')} could not be judged`,
      vacuous,
    };
  }
  return {
    verdict: 'fail',
    reason: `nothing tested: the client acted and every fault fired, yet none of ${s.invariants.join(' ')} could be judged`,
    vacuous,
  };
}
