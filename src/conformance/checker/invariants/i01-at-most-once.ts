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
        // The real batch APIs keep no key: the advice there is to stop the SDK's retries and list before re-creating.
        const advice = ctx.profile
          ? `retry a create of the ${ctx.profile.name} API only ${ctx.profile.keyed ? 'with the same idempotency key' : 'after its lookup shows no job for the operation'}, and after an ambiguous answer look the job up before creating again`
          : ctx.dialect === 'native'
            ? 'retry a create only with the same Idempotency-Key, and after an ambiguous answer reconcile (GET /v1/jobs?idempotency_key=) before creating again'
            : `the ${ctx.dialect} API de-duplicates nothing: turn the SDK's create retries off (maxRetries: 0) and, after an ambiguous answer, list the batches to find the one the lost create made before creating again`;
        return failure(
          op.id,
          `${op.id} caused ${op.jobIds.length} ${ctx.dialect === 'native' ? 'jobs' : 'batches'} (${op.jobIds.join(', ')}): creates ${creators.map((c) => (ctx.dialect === 'native' ? `#${c.seq} key=${c.idempotency_key}` : `#${c.seq}`)).join(' and ')} each created one; ${advice}`,
          creators.map((c) => c.seq),
          op.record?.history ?? [],
        );
      });
    return { applicable: ops.length > 0, failures };
  },
};
