import type { InvariantCheck } from '../context.js';
import { describeRequest, failure, finalEntry, iso, ms, sendTimeKnown, sentAt } from '../helpers.js';
import type { OperationView } from '../link.js';
import type { Failure } from '../verdict.js';
import { arrivedBy, owners, runningFor } from '../worker-presence.js';

/**
 * I12: no create after the create deadline; a job not final by the result deadline ends result_timed_out no
 * earlier than the deadline and no later than the grace after it; and polling stops then.
 */
export const i12Deadlines: InvariantCheck = {
  id: 'I12',
  judge(ctx) {
    const failures: Failure[] = [];
    const { clock_tolerance_ms: tol, deadline_grace_ms: grace } = ctx.options;
    const ops = ctx.operations.filter(
      (op): op is OperationView & { submission: NonNullable<OperationView['submission']> } =>
        op.submission !== undefined && op.creates.length > 0,
    );
    for (const op of ops) {
      const t0 = ms(op.submission.submitted_at);
      const createBy = t0 + op.submission.request.create_deadline_ms;
      const late = op.creates.filter((c) => sendTimeKnown(c) && sentAt(c) > createBy + tol);
      if (late.length) {
        failures.push(
          failure(
            op.id,
            `${op.id} sent create ${describeRequest(late[0]!)} after its create deadline ${iso(createBy)}; give up creating at the deadline (and never create a second job)`,
            late.map((c) => c.seq),
          ),
        );
      }
      const resultBy = t0 + op.submission.request.result_deadline_ms;
      // With a cancel asked while the operation was still open, the cancel deadline governs (the protocol has no
      // way from cancelling to result_timed_out, and carrying out a person's cancel beats abandoning the job); I5
      // judges that ending.
      const endedAt = finalEntry(op.record) ? ms(finalEntry(op.record)!.at) : Infinity;
      if (ctx.evidence.cancels.some((c) => c.operation_id === op.id && ms(c.requested_at) <= endedAt)) continue;
      // The grace is counted in time a worker ran after the deadline: every worker killed or paused stops that clock.
      const actBy = runningFor(ctx.evidence.harness, resultBy, grace, owners(op), { arrivedBy: arrivedBy(op, tol) });
      // Within the clock tolerance, as every other moment here: the client's last read at the deadline may see a job
      // that ended a millisecond after it, and collecting its results is then right (I3), not polling past the end.
      const jobFinalBy = op.jobIds.some((j) => (ctx.jobFacts(j)?.final?.at ?? Infinity) <= resultBy + tol);
      const entry = finalEntry(op.record);
      const history = op.record?.history ?? [];
      if (op.jobIds.length && !jobFinalBy && !(entry && ms(entry.at) < resultBy && entry.to !== 'result_timed_out')) {
        if (!entry) {
          if (ctx.journal.endAt > actBy)
            failures.push(
              failure(
                op.id,
                `${op.id} is still ${op.record?.state ?? 'without record'} after its result deadline ${iso(resultBy)}; end in result_timed_out and stop polling`,
                [],
                history,
              ),
            );
        } else if (entry.to === 'result_timed_out' && ms(entry.at) < resultBy - tol) {
          failures.push(failure(op.id, `${op.id} timed out at ${entry.at}, before its result deadline ${iso(resultBy)}`, [], [entry]));
        } else if (ms(entry.at) > actBy) {
          failures.push(
            failure(
              op.id,
              `${op.id} ended ${entry.to} at ${entry.at}, more than ${grace} ms after its result deadline ${iso(resultBy)}; wake up for the deadline`,
              [],
              [entry],
            ),
          );
        }
      }
      // After result_timed_out (or the deadline plus grace, for a job never final), automatic polling stops.
      const timedOut = history.find((h) => h.to === 'result_timed_out');
      const stopAt = timedOut ? ms(timedOut.at) + tol : !jobFinalBy && op.jobIds.length ? actBy : Infinity;
      const polls = op.requests.filter((r) => (r.route === 'status' || r.route === 'results') && sentAt(r) > stopAt);
      if (polls.length) {
        failures.push(
          failure(
            op.id,
            `${op.id} kept polling after its result deadline (${polls.length} request(s), first ${describeRequest(polls[0]!)})`,
            polls.map((r) => r.seq),
            timedOut ? [timedOut] : [],
          ),
        );
      }
    }
    return { applicable: ops.length > 0, failures };
  },
};
