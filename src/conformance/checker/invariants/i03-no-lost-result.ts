import { createKnowableAt, heldOffUntil, mainJob, type CheckContext, type InvariantCheck } from '../context.js';
import type { OperationView } from '../link.js';
import { cameWhilePaused, delivered, failure, finalEntry, iso, ms, sentAt } from '../helpers.js';
import type { Failure } from '../verdict.js';
import type { RequestEntry } from '../../../contract/journal.js';
import { arrivedBy, owners, runningFor } from '../worker-presence.js';

/**
 * I3: a job that succeeded with valid results early enough (grace before the result deadline) must end
 * `succeeded` with the provider's digest. Excused: results whose one-shot answer was lost on the way (the client
 * never had them), and operations that saw a foreign replay or a foreign find (I10 wants them in needs_attention). Validity needs
 * the provider's job snapshot; without one, only the state is judged. Also excused: an operation told to cancel that did
 * not end succeeded (I5 judges whether that was honest), and a job
 * whose end the client could not read in time because a Retry-After held it off past the grace, and
 * `result_unavailable` when no results fetch of the job ever got through and the results were really gone (410/404)
 * or the client kept trying until its result deadline. The time to collect runs from the job's end, or from when the
 * client could first know of the job when its create answer hung (it may wait on its create for the whole window).
 */
/**
 * The digest a succeeded record must carry: the native job's `result.sha256`; in a dialect (whose APIs send no
 * digest) the SHA-256 of a results body the provider actually handed the client (`served_sha256`; OpenAI: the output
 * or the error file).
 */
function expectedDigests(ctx: CheckContext, op: OperationView, job: string): string[] {
  const d = ctx.providerJob(job)?.result?.sha256;
  if (ctx.dialect === 'native' && !ctx.profile) return d === undefined ? [] : [d];
  // A profile hands the items out in its own shape: the job's digest (of their NDJSON), or of a body it served.
  const own = ctx.profile && d !== undefined ? [d] : [];
  return [
    ...own,
    ...op.requests
      .filter((r) => r.job_id === job && r.effect === 'results_served' && r.served_sha256 && delivered(r))
      .map((r) => r.served_sha256!),
  ];
}

/**
 * A request about `job`: the job its handler touched, or — for one refused or cut off before it executed (a 429, a
 * 503, a provider that closed under a held request), where no handler ran and the journal's job_id is null — the
 * job its path names.
 */
function namesJob(r: RequestEntry, job: string): boolean {
  return r.job_id === job || (r.job_id === null && r.path.split(/[/?]/).includes(job));
}

export const i03NoLostResult: InvariantCheck = {
  id: 'I3',
  judge(ctx) {
    const failures: Failure[] = [];
    const surelyRead = (r: RequestEntry) => delivered(r) && !cameWhilePaused(r, ctx.evidence.harness);
    let applicable = false;
    for (const op of ctx.operations) {
      // A foreign replay or a find that listed a foreign job under the key (the lookup path of the same violation):
      // I10 wants the operation in needs_attention, so its job's result is not "lost".
      const foreign = (r: RequestEntry) => r.effect === 'foreign_replay' && delivered(r);
      if (!op.submission || op.creates.some(foreign) || op.requests.some(foreign)) continue;
      const deadline = ms(op.submission.submitted_at) + op.submission.request.result_deadline_ms;
      // A client held off by Retry-After until past the deadline could not have read the job's end in time.
      const heldOff = heldOffUntil(op, deadline);
      const succeeded = op.jobIds.filter((j) => {
        const f = ctx.jobFacts(j)?.final;
        if (f && Math.max(f.at, heldOff) > deadline - ctx.options.deadline_grace_ms) return false;
        return f?.state === 'succeeded' && f.at <= deadline - ctx.options.deadline_grace_ms;
      });
      const collectable = succeeded.filter((j) => {
        const b = ctx.providerJob(j)?.behavior;
        // Served into a lost answer, or to a worker paused at the time (which may give it up at its resume).
        const resultsLost =
          op.requests.some((r) => r.job_id === j && r.effect === 'results_served' && (!surelyRead(r) || r.status !== 200)) &&
          b?.one_shot_results !== false;
        // The client tried to read the job's end in time but not one read got an answer through (all lost or
        // refused): it could not know. A client that never tried is not excused.
        const finalAt = ctx.jobFacts(j)!.final!.at;
        const reads = op.requests.filter(
          (r) => (r.route === 'list' || (r.route === 'status' && namesJob(r, j))) && sentAt(r) <= deadline && ms(r.at) >= finalAt,
        );
        const blind = reads.length > 0 && !reads.some((r) => delivered(r) && r.status === 200);
        // Workers ran (not killed, not paused) less than the grace between the job's end — or, after a create whose
        // answer hung, the moment the client could know of the job (createKnowableAt) — and the deadline: the client
        // was not given the time to collect.
        const from = Math.max(finalAt, createKnowableAt(ctx, op, j));
        const presence = { needsProvider: true, arrivedBy: arrivedBy(op, ctx.options.clock_tolerance_ms) };
        if (runningFor(ctx.evidence.harness, from, ctx.options.deadline_grace_ms, owners(op), presence) > deadline) return false;
        const unverifiable = ctx.dialect === 'native' && (b?.corrupt_digest || b?.error_row);
        return !unverifiable && !resultsLost && !blind;
      });
      if (collectable.length === 0) continue;
      applicable = true;
      const job = collectable.includes(mainJob(op) ?? '') ? mainJob(op)! : collectable[0]!;
      const seqs = [
        ctx.jobFacts(job)!.final!.seq,
        ...op.requests.filter((r) => r.job_id === job && r.route === 'results').map((r) => r.seq),
      ];
      const history = op.record?.history ?? [];
      const state = op.record?.state ?? 'no record';
      // After a cancel intent, which final state is honest is I5's question (it may stop at the cancel deadline).
      const entry = finalEntry(op.record);
      const toldToCancel = op.cancelIntents.some((c) => !entry || ms(c.requested_at) <= ms(entry.at) + ctx.options.clock_tolerance_ms);
      if (state !== 'succeeded' && toldToCancel) continue;
      // result_unavailable is the honest ending when no results fetch of the job ever got through to the client and
      // either the provider said they are gone (410, or 404 where a dialect's file is gone) or the client kept trying
      // until its result deadline. One failed fetch (a 5xx) is not the results being gone.
      const resultsReached = op.requests.some((r) => r.job_id === job && r.route === 'results' && r.status === 200 && surelyRead(r));
      const gone = op.requests.some(
        (r) => r.job_id === job && r.route === 'results' && delivered(r) && (r.status === 410 || r.status === 404),
      );
      const tried = op.requests.some((r) => r.route === 'results' && namesJob(r, job));
      const triedToTheEnd = tried && entry !== undefined && ms(entry.at) >= deadline - ctx.options.clock_tolerance_ms;
      if (state === 'result_unavailable' && !resultsReached && (gone || triedToTheEnd)) continue;
      if (state !== 'succeeded') {
        failures.push(
          failure(
            op.id,
            `${op.id}: job ${job} succeeded at ${iso(ctx.jobFacts(job)!.final!.at)}, before the result deadline ${iso(deadline)}, with valid results, but the operation is ${state}; keep observing until the job is final and fetch its results`,
            seqs,
            history,
          ),
        );
        continue;
      }
      const want = expectedDigests(ctx, op, job)[0];
      const got = op.record?.result?.sha256;
      const digests = collectable.flatMap((j) => expectedDigests(ctx, op, j));
      if (want !== undefined && !digests.includes(got ?? '')) {
        failures.push(
          failure(
            op.id,
            `${op.id} succeeded with result.sha256 ${got ?? 'missing'} but the provider's job ${job} has ${want}${ctx.dialect === 'native' ? '' : ' (the SHA-256 of the results body it served)'}; record the digest of the verified body`,
            seqs,
            history,
          ),
        );
      }
    }
    return { applicable, failures };
  },
};
