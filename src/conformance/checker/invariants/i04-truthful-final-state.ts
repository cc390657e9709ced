import type { RequestEntry } from '../../../contract/journal.js';
import { createKnowableAt, jobKnownAt, type CheckContext, type InvariantCheck } from '../context.js';
import { delivered, failure, finalEntry, iso, ms, shownStates } from '../helpers.js';
import { arrivedBy, owners, runningFor } from '../worker-presence.js';
import type { OperationView } from '../link.js';

/**
 * Whether the client was still looking the job up when it gave up, and the provider lost every answer: a lookup
 * (`list`) sent after the job was created, none of whose answers reached the client, one still under way within the
 * grace before the final state. The provider would not say whether a job exists, as if it were down; a client that asked
 * once and then sat idle past the grace is not excused. (A delivered lookup makes the job known: jobKnownAt.)
 */
function stillAskingUnanswered(ctx: CheckContext, op: OperationView, created: number, at: number): boolean {
  // When the client asked: a lookup held by the provider is journalled when it executes, maybe after the give-up.
  const sent = (r: RequestEntry) => ms(r.received_at ?? r.at);
  const lookups = op.requests.filter((r) => r.route === 'list' && sent(r) >= created && sent(r) <= at);
  if (!lookups.length || lookups.some(delivered)) return false;
  // Still asking: sent, or still unanswered (held, or executed into a hang), within the grace before the final state.
  // The journal cannot tell when the client hung up on a held lookup; its execution time is the bound taken.
  return Math.max(...lookups.map((r) => Math.max(sent(r), ms(r.at)))) >= at - ctx.options.deadline_grace_ms;
}

/**
 * I4: every final state rests on something the provider said and the client received. Returns the reason a
 * final state is not backed, or null when it is.
 */
function unbacked(ctx: CheckContext, op: OperationView, at: number): { why: string; seqs: number[] } | null {
  const tol = ctx.options.clock_tolerance_ms;
  const state = op.record!.state;
  const byThen = (r: RequestEntry) => ms(r.at) <= at + tol;
  const jobs = op.jobIds;

  // A job that came to be only after the final state (a create held at the provider past it) was not there to know
  // of; whether the final state may stand with it is the state's own rule below. An ending that claims nothing about a
  // job (unconfirmed, timed out) may also stand when the client had less than the grace to find it: workers killed or
  // paused, or the provider down until the give-up.
  // The grace runs from when the client could know the create answer was lost (createKnowableAt).
  const claimsNothing = state === 'cancellation_unconfirmed' || state === 'result_timed_out';
  const unknown = jobs.filter((j) => {
    const created = ctx.jobFacts(j)?.createdAt ?? -Infinity;
    if (created > at + tol || (jobKnownAt(ctx, op, j) ?? Infinity) <= at + tol) return false;
    if (!claimsNothing) return true;
    const knowable = createKnowableAt(ctx, op, j);
    if (stillAskingUnanswered(ctx, op, created, at)) return false;
    const presence = { needsProvider: true, arrivedBy: arrivedBy(op, tol) };
    return runningFor(ctx.evidence.harness, knowable, ctx.options.deadline_grace_ms, owners(op), presence) <= at;
  });
  if (unknown.length && state !== 'needs_attention') {
    return {
      why: `ended ${state} while job ${unknown.join(', ')} existed at the provider unknown to it (create answer lost, never reconciled); find the job (${ctx.profile ? `the ${ctx.profile.name} API's lookup` : ctx.dialect === 'native' ? 'GET /v1/jobs?idempotency_key=' : 'list the batches'}) before any final state`,
      seqs: op.creates.map((c) => c.seq),
    };
  }
  const named = op.record!.remote_job_id;
  if (named && jobs.length && !jobs.includes(named) && state !== 'needs_attention') {
    return {
      why: `ended ${state} naming job ${named}, which none of its creates created (its jobs: ${jobs.join(', ')})`,
      seqs: op.creates.map((c) => c.seq),
    };
  }
  switch (state) {
    case 'succeeded': {
      // A profile whose final view carries the results hands them out with a read of the succeeded job.
      const inline = ctx.profile?.inline_results === true;
      const fetch = op.requests.find(
        (r) =>
          (r.effect === 'results_served' || (inline && r.route === 'status' && r.job_state === 'succeeded')) &&
          r.status === 200 &&
          delivered(r) &&
          byThen(r) &&
          ctx.jobFacts(r.job_id ?? '')?.final?.state === 'succeeded',
      );
      return fetch
        ? null
        : {
            why: 'ended succeeded without a delivered results fetch of a succeeded job before it',
            seqs: op.requests.filter((r) => r.route === 'results').map((r) => r.seq),
          };
    }
    case 'cancelled': {
      const notCancelled = jobs.filter((j) => {
        const f = ctx.jobFacts(j)?.final;
        return !(f?.state === 'cancelled' && f.at <= at + tol);
      });
      if (!notCancelled.length) return null;
      const f = ctx.jobFacts(notCancelled[0]!)?.final;
      return {
        why: `ended cancelled but job ${notCancelled[0]} was ${f ? `${f.state} (at ${iso(f.at)})` : 'not final'} at that time; only a provider state cancelled means cancelled`,
        seqs: f ? [f.seq] : [],
      };
    }
    case 'failed': {
      if (!jobs.length) return null; // no job exists: saying the operation failed claims nothing false about one
      const said =
        op.requests.find(
          (r) => delivered(r) && byThen(r) && jobs.some((j) => shownStates(r, j).some((st) => st === 'failed' || st === 'expired')),
        ) ??
        jobs
          .flatMap((j) => ctx.jobFacts(j)?.webhooks ?? [])
          .find((w) => w.outcome === 'delivered' && ms(w.at) <= at + tol && /^job\.(failed|expired)$/.test(w.event_type));
      return said
        ? null
        : {
            why: `ended failed but the provider never told it job ${jobs.join(', ')} failed`,
            seqs: jobs.flatMap((j) => (ctx.jobFacts(j)?.final ? [ctx.jobFacts(j)!.final!.seq] : [])),
          };
    }
    case 'result_unavailable':
    case 'result_validation_failed':
      return jobs.some((j) => ctx.jobFacts(j)?.final?.state === 'succeeded')
        ? null
        : { why: `ended ${state} but no job of it succeeded at the provider`, seqs: [] };
    case 'cancellation_unconfirmed':
      return op.cancelIntents.length ? null : { why: 'ended cancellation_unconfirmed without any cancel intent', seqs: [] };
    default:
      return null;
  }
}

export const i04TruthfulFinalState: InvariantCheck = {
  id: 'I4',
  judge(ctx) {
    const finals = ctx.operations.filter((op) => op.record && finalEntry(op.record));
    const failures = finals.flatMap((op) => {
      const entry = finalEntry(op.record)!;
      const bad = unbacked(ctx, op, ms(entry.at));
      return bad ? [failure(op.id, `${op.id} ${bad.why}`, bad.seqs, [entry])] : [];
    });
    return { applicable: finals.length > 0, failures };
  },
};
