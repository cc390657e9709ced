import { mainJob, type InvariantCheck } from '../context.js';
import {
  cameWhilePaused,
  delivered,
  describeRequest,
  failure,
  finalEntry,
  iso,
  ms,
  statesReporting,
  TERMINAL_ANSWER_STATES,
  reachedALiveWorker,
} from '../helpers.js';
import type { Failure } from '../verdict.js';

/**
 * I5: after a cancel intent the client keeps observing until the job is final or the cancel deadline passed,
 * then reports what happened: the provider's outcome if it was final by then, else cancellation_unconfirmed.
 */
export const i05HonestCancel: InvariantCheck = {
  id: 'I5',
  judge(ctx) {
    const failures: Failure[] = [];
    const tol = ctx.options.clock_tolerance_ms;
    const ops = ctx.operations.filter((op) => op.cancelIntents.length > 0);
    for (const op of ops) {
      const intent = op.cancelIntents[0]!;
      const asked = ms(intent.requested_at);
      const deadline = asked + intent.cancel_deadline_ms;
      // The result deadline may come first; the client may stop observing then (state machine: cancellation_unconfirmed).
      const resultBy = op.submission ? ms(op.submission.submitted_at) + op.submission.request.result_deadline_ms : Infinity;
      const giveUpFrom = Math.min(deadline, resultBy);
      const entry = finalEntry(op.record);
      if (entry && ms(entry.at) < asked - tol) continue; // already final when the cancel came: nothing to cancel
      const job = mainJob(op);
      if (!job) continue; // no job was ever created: I4 judges a `cancelled` without one
      const jobFinal = ctx.jobFacts(job)?.final;
      const history = op.record?.history ?? [];
      const seqs = [...op.requests.filter((r) => r.route === 'cancel').map((r) => r.seq), ...(jobFinal ? [jobFinal.seq] : [])];
      if (!entry) {
        if (ctx.journal.endAt > deadline + ctx.options.deadline_grace_ms) {
          failures.push(
            failure(
              op.id,
              `${op.id} is still ${op.record?.state ?? 'without record'} after the cancel deadline ${iso(deadline)}; end in cancellation_unconfirmed when the provider does not confirm in time`,
              seqs,
              history,
            ),
          );
        }
        continue;
      }
      const at = ms(entry.at);
      const state = op.record!.state;
      if (state === 'cancellation_unconfirmed' || state === 'result_timed_out') {
        // Honest if the client was never told the job had ended, and waited for the deadline.
        const told = op.requests.find(
          (r) =>
            r.job_id === job &&
            delivered(r) &&
            r.job_state !== null &&
            TERMINAL_ANSWER_STATES.includes(r.job_state) &&
            // A held (delayed) answer that came as the client gave up may have been abandoned by its timeout at
            // that same moment; only one that came clearly before the give-up surely reached it. One that came while
            // its worker was paused surely reached nothing: at the resume its timeout may have given it up first.
            !cameWhilePaused(r, ctx.evidence.harness) &&
            (r.delivery === 'delayed' ? ms(r.at) < at - tol : ms(r.at) <= at + tol) &&
            reachedALiveWorker(r, ctx.journal.requests, ctx.evidence.harness, ctx.options.kill_read_window_ms),
        );
        if (told) {
          failures.push(
            failure(
              op.id,
              `${op.id} ended ${state} although ${describeRequest(told)} had told it job ${job} was ${told.job_state}; report what happened`,
              [...seqs, told.seq],
              [entry],
            ),
          );
        } else if (at < giveUpFrom - tol) {
          failures.push(
            failure(
              op.id,
              `${op.id} gave up at ${entry.at}, before the cancel deadline ${iso(giveUpFrom)}, while job ${job} was not final; keep observing until the deadline`,
              seqs,
              [entry],
            ),
          );
        }
      } else if (state !== 'needs_attention') {
        if (!jobFinal || jobFinal.at > at + tol) {
          failures.push(
            failure(
              op.id,
              `${op.id} ended ${state} at ${entry.at} while job ${job} was not final${jobFinal ? ` (it ended ${jobFinal.state} at ${iso(jobFinal.at)})` : ''}; report cancellation_unconfirmed when the cancel is not confirmed`,
              seqs,
              [entry],
            ),
          );
        } else if (!statesReporting(jobFinal.state).includes(state)) {
          failures.push(
            failure(
              op.id,
              `${op.id} ended ${state} but its job ${job} had ended ${jobFinal.state}; a lost cancel race is reported as what happened`,
              seqs,
              [entry],
            ),
          );
        }
      }
    }
    return { applicable: ops.length > 0, failures };
  },
};
