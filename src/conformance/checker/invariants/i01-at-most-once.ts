import type { InvariantCheck } from '../context.js';
import { failure } from '../helpers.js';

/** I1: count the jobs each operation caused from the journal's `created` effects, never from the client. */
export const i01AtMostOnce: InvariantCheck = {
  id: 'I1',
  judge(ctx) {
    const ops = ctx.operations.filter((op) => op.creates.length > 0);
    const failures = ops
      .filter((op) => op.jobIds.length > 1)
      .map((op) => {
        const creators = op.creates.filter((c) => c.effect === 'created');
        return failure(
          op.id,
          `${op.id} caused ${op.jobIds.length} jobs (${op.jobIds.join(', ')}): creates ${creators.map((c) => `#${c.seq} key=${c.idempotency_key}`).join(' and ')} each created one; retry a create only with the same Idempotency-Key, and after an ambiguous answer reconcile (GET /v1/jobs?idempotency_key=) before creating again`,
          creators.map((c) => c.seq),
          op.record?.history ?? [],
        );
      });
    return { applicable: ops.length > 0, failures };
  },
};
