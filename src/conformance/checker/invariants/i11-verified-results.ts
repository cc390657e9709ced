import type { InvariantCheck } from '../context.js';
import { failure } from '../helpers.js';
import type { Failure } from '../verdict.js';

/**
 * I11: results that cannot verify (digest mismatch, an error row the contract does not allow) never end
 * succeeded; a partial batch reports its failed items. Needs the provider's job snapshots (behaviour, result).
 */
export const i11VerifiedResults: InvariantCheck = {
  id: 'I11',
  judge(ctx) {
    const failures: Failure[] = [];
    let applicable = false;
    for (const op of ctx.operations) {
      for (const job of op.jobIds) {
        const snap = ctx.providerJob(job);
        // Neither dialect can express a digest mismatch or an error row (dialects.md): those behaviours have no effect there.
        const corrupt = ctx.dialect === 'native' && Boolean(snap?.behavior?.corrupt_digest || snap?.behavior?.error_row);
        const partial = (snap?.result?.items_failed ?? 0) > 0;
        if (!corrupt && !partial) continue;
        applicable = true;
        const record = op.record;
        if (record?.state !== 'succeeded' || (record.remote_job_id && record.remote_job_id !== job)) continue;
        const seqs = op.requests.filter((r) => r.job_id === job && r.route === 'results').map((r) => r.seq);
        const entry = record.history.filter((h) => h.to === 'succeeded');
        if (corrupt) {
          const what = snap!.behavior!.corrupt_digest
            ? 'a body that does not match its digest'
            : 'an error row the job does not account for';
          failures.push(
            failure(
              op.id,
              `${op.id} ended succeeded although job ${job} served ${what}; verify Content-Digest, result.sha256 and every row before succeeding`,
              seqs,
              entry,
            ),
          );
        } else if (record.result?.items_failed !== snap!.result!.items_failed || record.result?.items_total !== snap!.result!.items_total) {
          failures.push(
            failure(
              op.id,
              `${op.id} reports items ${record.result?.items_failed ?? '?'} failed of ${record.result?.items_total ?? '?'}, the provider ${snap!.result!.items_failed} of ${snap!.result!.items_total}; report a partial batch's failed items`,
              seqs,
              entry,
            ),
          );
        }
      }
    }
    return { applicable, failures };
  },
};
