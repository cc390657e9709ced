import { INVARIANTS } from '../../contract/invariants.js';
import { buildContext, type InvariantCheck } from './context.js';
import { RunEvidenceSchema, type RunEvidence, type RunEvidenceInput } from './evidence.js';
import type { InvariantResult, Verdict } from './verdict.js';
import { i01AtMostOnce } from './invariants/i01-at-most-once.js';
import { i02KeyDiscipline } from './invariants/i02-key-discipline.js';
import { i03NoLostResult } from './invariants/i03-no-lost-result.js';
import { i04TruthfulFinalState } from './invariants/i04-truthful-final-state.js';
import { i05HonestCancel } from './invariants/i05-honest-cancel.js';
import { i06OneCancel } from './invariants/i06-one-cancel.js';
import { i07RetryAfter } from './invariants/i07-retry-after.js';
import { i08BoundedPolling } from './invariants/i08-bounded-polling.js';
import { i09SingleOwner } from './invariants/i09-single-owner.js';
import { i10ContractViolation } from './invariants/i10-contract-violation.js';
import { i11VerifiedResults } from './invariants/i11-verified-results.js';
import { i12Deadlines } from './invariants/i12-deadlines.js';
import { i13WebhookSafety } from './invariants/i13-webhook-safety.js';
import { i14Trace } from './invariants/i14-trace.js';
import { i15History } from './invariants/i15-history.js';

/** In INVARIANTS order, one module per invariant. */
export const CHECKS: readonly InvariantCheck[] = [
  i01AtMostOnce,
  i02KeyDiscipline,
  i03NoLostResult,
  i04TruthfulFinalState,
  i05HonestCancel,
  i06OneCancel,
  i07RetryAfter,
  i08BoundedPolling,
  i09SingleOwner,
  i10ContractViolation,
  i11VerifiedResults,
  i12Deadlines,
  i13WebhookSafety,
  i14Trace,
  i15History,
];

/**
 * Judge one run. Pure: the same evidence gives the same verdict. The evidence is parsed first (defaults filled,
 * shape checked), so a runner may pass plain JSON.
 */
export function check(evidence: RunEvidenceInput): Verdict {
  return checkParsed(RunEvidenceSchema.parse(evidence));
}

/** `check` of evidence already parsed (a runner that keeps the parsed evidence need not parse it twice). */
export function checkParsed(parsed: RunEvidence): Verdict {
  const ctx = buildContext(parsed);
  const invariants: InvariantResult[] = INVARIANTS.map((info) => {
    const { applicable, failures } = CHECKS.find((c) => c.id === info.id)!.judge(ctx);
    const status = failures.length ? 'broken' : applicable ? 'held' : 'not_applicable';
    return { id: info.id, name: info.name, status, failures };
  });
  return { ok: invariants.every((i) => i.status !== 'broken'), scenario: parsed.scenario, invariants };
}
