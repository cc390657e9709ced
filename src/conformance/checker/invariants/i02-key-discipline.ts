import type { CheckContext, InvariantCheck, Judgement } from '../context.js';
import { failure, normKey } from '../helpers.js';
import { requestBody } from '../link.js';
import type { Failure } from '../verdict.js';

/**
 * I2: one key per operation on every create attempt, the same body under that key, a changed request refused
 * (exit 3), and no key shared by operations with different requests.
 */
export const i02KeyDiscipline: InvariantCheck = {
  id: 'I2',
  judge(ctx) {
    if (ctx.keyless) return refusedChanges(ctx);
    const failures: Failure[] = [];
    const ops = ctx.operations.filter((op) => op.creates.length > 0 || op.changedSubmissions.length > 0);
    for (const op of ops) {
      const key = op.key ?? normKey(op.creates[0]?.idempotency_key);
      const otherKeys = op.creates.filter((c) => normKey(c.idempotency_key) !== key);
      if (otherKeys.length) {
        failures.push(
          failure(
            op.id,
            `${op.id}'s creates carried keys other than ${key} (${otherKeys.map((c) => `#${c.seq}: ${c.idempotency_key ?? 'none'}`).join(', ')}); store the key with the operation before the first attempt and reuse it`,
            op.creates.map((c) => c.seq),
          ),
        );
      }
      const prints = new Set(op.creates.filter((c) => c.fingerprint !== null).map((c) => c.fingerprint));
      const reused = op.creates.filter((c) => c.code === 'idempotency_key_reused');
      if (prints.size > 1 || reused.length) {
        failures.push(
          failure(
            op.id,
            `${op.id} sent different create bodies under one key (${prints.size} fingerprints${reused.length ? `, 422 idempotency_key_reused at #${reused.map((c) => c.seq).join(', #')}` : ''}); persist the exact body with the key and resend it byte for byte`,
            op.creates.map((c) => c.seq),
          ),
        );
      }
      failures.push(...changedNotRefused(op));
    }
    // Operations with different requests sharing a key: reported once, on the later operation.
    const seen = new Map<string, (typeof ctx.operations)[number]>();
    for (const op of ctx.operations) {
      if (op.key === null) continue;
      const first = seen.get(op.key);
      if (!first) {
        seen.set(op.key, op);
        continue;
      }
      const differ =
        first.submission && op.submission
          ? requestBody(first.submission) !== requestBody(op.submission)
          : first.record?.request_fingerprint !== op.record?.request_fingerprint;
      if (differ) {
        failures.push(
          failure(
            op.id,
            `${op.id} and ${first.id} carry different requests but share the key ${op.key}; give every operation its own key`,
            op.creates.map((c) => c.seq),
          ),
        );
      }
    }
    return { applicable: ops.length > 0, failures };
  },
};

function changedNotRefused(op: CheckContext['operations'][number]): Failure[] {
  return op.changedSubmissions
    .filter((s) => s.exit_code !== 3)
    .map((s) =>
      failure(
        op.id,
        `submit of ${op.id} with a changed request exited ${s.exit_code ?? 'unknown'} instead of 3; a changed request is a new operation with a new id and key`,
        [],
        op.record?.history ?? [],
      ),
    );
}

/**
 * In a wire dialect there is no key to keep (neither API takes one; the dialect journals and ignores the header):
 * what is left of I2 is the protocol's half, a changed request for an existing operation refused with exit 3.
 */
function refusedChanges(ctx: CheckContext): Judgement {
  const ops = ctx.operations.filter((op) => op.changedSubmissions.length > 0);
  return { applicable: ops.length > 0, failures: ops.flatMap(changedNotRefused) };
}
