import type { CaseOutcome } from '../outcome.js';
import type { InvariantResult, Verdict } from '../checker/verdict.js';

/**
 * client-protocol.md: a `show` whose output does not match the record's shape is one protocol error for that
 * operation, never a cascade of broken invariants. The judge sees no record for such an operation (it cannot read
 * one), so every failure it finds there is set aside and the case fails once, naming the field and the value.
 */
export function withProtocolErrors(
  verdict: Verdict,
  outcome: CaseOutcome,
  errors: ReadonlyMap<string, string>,
  stopReason: string | null,
): { verdict: Verdict; outcome: CaseOutcome; lines: string[] } {
  const lines = [...errors].map(
    ([op, problem]) => `protocol error — ${op}: show printed a record that does not match the protocol: ${problem}`,
  );
  if (!lines.length && !stopReason) return { verdict, outcome, lines };
  const invariants = verdict.invariants.map((inv): InvariantResult => {
    const failures = inv.failures.filter((f) => !errors.has(f.operation_id));
    const status = inv.status === 'broken' && !failures.length ? 'not_applicable' : inv.status;
    return { ...inv, failures, status };
  });
  const reason = lines.length ? lines.join('; ') : stopReason!;
  return {
    verdict: { ...verdict, ok: false, invariants },
    outcome: { verdict: 'fail', reason },
    lines: lines.length ? lines : [stopReason!],
  };
}
