import { nextDelay, POLL_POLICY, RETRY_AFTER_MARGIN_MS } from './backoff.js';
import { giveUpAt, noRoomToRead, retryAt } from './deadlines.js';
import { describe, isBackOff, remoteFacts, terminalMove } from './job-answer.js';
import { retryDelay } from './http.js';
import type { OpStep } from './op-step.js';
import { pollOnce, type PollRules } from './poll.js';

/**
 * Cancel: one request, sent by the lease holder, recorded as in flight before it leaves so that no successor can
 * mistake "maybe sent" for "not sent". It is sent again only when the previous attempt failed ambiguously (or was
 * refused unexecuted) AND a status read shows the provider never got it. Only the provider's `cancelled` ends it
 * as cancelled; a lost race ends as what happened.
 */
export async function cancelStep(s: OpStep): Promise<void> {
  const intent = s.rec.cancel!;
  const rules: PollRules = {
    deadlineAt: intent.deadline_at,
    onDeadline: {
      to: 'cancellation_unconfirmed',
      evidence: 'cancel_deadline',
      cause: 'cancel deadline passed without the provider confirming',
    },
  };
  if (s.rec.state === 'cancelling') return pollOnce(s, rules);

  // cancel_requested: was a previous attempt possibly delivered? Ask before asking again.
  if (s.rec.cancel_attempt !== null && s.rec.cancel_attempt !== 'answered') {
    const landed = await previousCancelLanded(s, rules);
    if (landed) return;
  }
  // Out of time before a cancel could go out: one last read, so a job that already ended is reported as it ended.
  if (s.now() >= intent.deadline_at) return pollOnce(s, rules);
  const r = s.rec;
  await s.commit({ patch: { cancel_sends: r.cancel_sends + 1, cancel_attempt: 'in_flight', next_poll_at: s.now() + s.env.leaseMs } });
  const c = await s.wire.cancel(s, intent.reason);
  if (c.kind === 'unsupported') {
    // The API cannot cancel (405/501, or it has no cancel at all): the job runs to its own end, and no read can
    // ever confirm a cancel, so the operation says so now rather than at its deadline.
    const why = c.call ? `the API cannot cancel a job (${describe(c.call)})` : 'the API has no cancel';
    await s.commit({
      moves: [{ to: 'cancellation_unconfirmed', evidence: 'cancel_answer', cause: why, call: c.call ?? undefined }],
      patch: { cancel_attempt: 'answered', reason: why },
    });
    return;
  }
  const o = c.call;
  const now = s.now();
  if (c.kind === 'accepted') {
    const job = c.job;
    const next = Math.min(s.after(nextDelay(POLL_POLICY, 0, r.operation_id, c.call.retryAfterMs)), intent.deadline_at);
    await s.commit({
      moves: [
        {
          to: 'cancelling',
          evidence: 'cancel_answer',
          cause: 'provider accepted the cancel request',
          call: o,
          jobState: job?.state ?? null,
          jobId: r.remote_job_id,
        },
      ],
      patch: { ...(job ? remoteFacts(job) : {}), cancel_attempt: 'answered', attempt: 1, next_poll_at: next },
    });
    return;
  }
  if (c.kind === 'ended') {
    const job = c.job;
    const t = terminalMove(job, 'cancel_answer', o, `cancel lost the race: job already ${job.state}`);
    if (t) {
      await s.commit({ moves: [t.move], patch: { ...remoteFacts(job), ...t.patch, cancel_attempt: 'answered', next_poll_at: now } });
      return;
    }
  }
  if (o.kind === 'answer' && o.status === 404) {
    await s.commit({
      moves: [{ to: 'needs_attention', evidence: 'contract_violation', cause: 'provider no longer knows our job', call: o }],
      patch: { reason: 'job_not_found on cancel' },
    });
    return;
  }
  const refused = o.kind === 'answer' && o.status < 500;
  const notBefore = isBackOff(o) ? now + o.retryAfterMs! + RETRY_AFTER_MARGIN_MS : r.not_before;
  const delay = retryDelay(o, r.attempt, r.operation_id);
  await s.commit({
    patch: {
      cancel_attempt: refused ? 'refused' : 'ambiguous',
      attempt: r.attempt + 1,
      not_before: notBefore,
      next_poll_at: retryAt(now, delay, intent.deadline_at, notBefore),
    },
    audit: [
      {
        at: now,
        actor: s.env.workerId,
        kind: 'call',
        operation_id: r.operation_id,
        detail: { note: `cancel attempt not confirmed: ${describe(o)}` },
      },
    ],
  });
}

/**
 * A status read decides whether an earlier cancel attempt reached the provider: `cancel_requested_at` set (or the
 * job in `cancelling`) means it did, and we must not send another. Returns true when this turn is done.
 */
async function previousCancelLanded(s: OpStep, rules: PollRules): Promise<boolean> {
  const r = s.rec;
  // As a status read while observing (poll.ts): past the deadline, no read without room for a whole answer.
  if (noRoomToRead(s.now(), rules.deadlineAt)) {
    await s.commit({ moves: [{ ...rules.onDeadline, detail: 'no time left before the give-up for another read' }] });
    return true;
  }
  const read = await s.wire.read(s, false);
  const o = read.call;
  const job = read.kind === 'job' ? read.job : null;
  if (!job) {
    // Could not tell. Try again later rather than risk a second cancel.
    const now = s.now();
    const notBefore = isBackOff(o) ? now + o.retryAfterMs! + RETRY_AFTER_MARGIN_MS : r.not_before;
    if (now >= giveUpAt(rules.deadlineAt)) {
      await s.commit({ moves: [{ ...rules.onDeadline, call: o, detail: `could not confirm the cancel: ${describe(o)}` }] });
      return true;
    }
    const delay = retryDelay(o, r.attempt, r.operation_id);
    await s.commit({
      patch: { attempt: r.attempt + 1, not_before: notBefore, next_poll_at: retryAt(now, delay, rules.deadlineAt, notBefore) },
    });
    return true;
  }
  const t = terminalMove(job, 'status_answer', o, `job ${job.state} after cancel was asked`);
  if (t) {
    await s.commit({ moves: [t.move], patch: { ...remoteFacts(job), ...t.patch, cancel_attempt: 'answered', next_poll_at: s.now() } });
    return true;
  }
  if (job.state === 'cancelling' || job.cancel_requested_at !== null) {
    await s.commit({
      moves: [
        {
          to: 'cancelling',
          evidence: 'status_answer',
          cause: 'an earlier cancel attempt reached the provider',
          call: o,
          jobState: job.state,
          jobId: job.job_id,
        },
      ],
      patch: {
        ...remoteFacts(job),
        cancel_attempt: 'answered',
        next_poll_at: s.after(nextDelay(POLL_POLICY, 0, r.operation_id, o.kind === 'answer' ? o.retryAfterMs : null)),
      },
    });
    return true;
  }
  await s.commit({ patch: remoteFacts(job) });
  return false;
}
