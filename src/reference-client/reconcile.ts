import { nextDelay, RETRY_AFTER_MARGIN_MS, RETRY_POLICY } from './backoff.js';
import { retryDelay, type CallOutcome } from './http.js';
import { isTerminal } from '../contract/jobs.js';
import { remoteFacts } from './job-answer.js';
import type { Move, OpStep } from './op-step.js';
import { adoptFound, createBy, replayConflict, sendCreate } from './create.js';
import { giveUpAt, governingDeadline, MIN_REQUEST_MS, noRoomToRead, retryAt } from './deadlines.js';

/**
 * After an ambiguous create the client does not guess: it asks the provider what our key (and, failing that, our
 * client_ref) created, then replays the same key and holds the replay to what the lookup showed. With a cancel
 * intent or past the create deadline it only looks, never creates.
 */
export async function reconcileStep(s: OpStep): Promise<void> {
  const r = s.rec;
  const deadline = governingDeadline(r)!;
  // As a status read (poll.ts): past the deadline, a lookup needs room for a whole answer before the give-up time; one
  // sent later could hang a whole request timeout past it.
  if (noRoomToRead(s.now(), deadline)) {
    const why = 'no time left before the give-up for another lookup, and the provider has not said whether a job exists';
    return r.cancel ? giveUpCancel(s, undefined, [], why) : giveUpResult(s, undefined, [], why);
  }
  const l = await s.wire.find(s, createBy(r));
  const now = s.now();
  if (l.kind === 'unclear') {
    if (now >= giveUpAt(deadline)) return r.cancel ? giveUpCancel(s, l.call) : giveUpResult(s, l.call);
    const o = l.call;
    const notBefore = o.kind === 'answer' && o.retryAfterMs !== null ? now + o.retryAfterMs + RETRY_AFTER_MARGIN_MS : r.not_before;
    await s.commit({
      patch: {
        attempt: r.attempt + 1,
        not_before: notBefore,
        next_poll_at: retryAt(now, retryDelay(o, r.attempt, r.operation_id), deadline, notBefore),
      },
    });
    return;
  }
  if (l.kind === 'conflict') {
    await s.commit({
      moves: [
        {
          to: 'needs_attention',
          evidence: 'contract_violation',
          cause: `provider shows several jobs for one key: ${l.ids.join(', ')}`,
          call: l.call,
          jobId: l.ids[0],
          otherJobId: l.ids[1],
        },
      ],
      patch: { remote_job_id: l.ids[0]!, conflicting_job_id: l.ids[1]!, reason: 'several jobs for one idempotency key' },
    });
    return;
  }
  const found = l.kind === 'found' ? l.job : null;
  const moves: Move[] = [];
  const what = found ? `lookup shows job ${found.job_id}` : 'lookup shows no job for this operation';
  if (r.state === 'create_unknown')
    moves.push({
      to: 'reconciliation',
      evidence: 'lookup_answer',
      cause: what,
      call: l.call,
      jobId: found?.job_id ?? null,
      jobState: found?.state ?? null,
    });

  // A job a replay named that no lookup confirmed (create.ts writes it before checking): another one here is a conflict.
  if (found && r.conflicting_job_id !== null && r.conflicting_job_id !== found.job_id)
    return replayConflict(s, moves, l.call, found.job_id, r.conflicting_job_id, `but our key created ${found.job_id}`, {
      remote_job_id: found.job_id,
      reason: 'provider answered a replayed create with a different job id',
    });
  if (found) {
    // A job the lookup shows ended is not cancelled: the operation ends on what it shows, as a cancel that lost the
    // race does (client-protocol.md, `cancelled`), instead of asking for a cancel the provider would refuse.
    if (r.cancel && isTerminal(found.state))
      return adoptFound(s, found, l.call, moves, `${what}; it has ended, so no cancel is sent`, { next_poll_at: now });
    if (r.cancel) {
      if (r.state === 'create_pending')
        moves.push({ to: 'accepted', evidence: 'lookup_answer', cause: what, call: l.call, jobId: found.job_id, jobState: found.state });
      moves.push({
        to: 'cancel_requested',
        evidence: r.state === 'create_pending' ? 'cancel_intent' : 'lookup_answer',
        cause: `cancel asked by ${r.cancel.actor}; ${what}`,
        jobId: found.job_id,
      });
      const facts = { ...remoteFacts(found), remote_job_id: found.job_id, conflicting_job_id: null, attempt: 0, next_poll_at: now };
      await s.commit({ moves, patch: facts });
      return;
    }
    // Without idempotency keys a replay could make a second job: the job the lookup showed is adopted instead.
    if (r.state === 'create_pending' || now >= createBy(r) || !s.wire.idempotencyKeys)
      return adoptFound(s, found, l.call, moves, `${what}; adopting it without another create`, { next_poll_at: now });
    await sendCreate(s, l.kind === 'found' ? l : null, moves);
    return;
  }
  // No job (yet). While we may still create, replay the same key. Otherwise keep looking until the governing deadline:
  // a create of ours may still be held or delayed at the provider and show up.
  if (!r.cancel && now < createBy(r)) {
    await sendCreate(s, null, moves);
    return;
  }
  const lookUntil = Math.max((r.last_create_at ?? 0) + 2 * MIN_REQUEST_MS, deadline);
  if (now < lookUntil) {
    const next = Math.min(now + nextDelay(RETRY_POLICY, r.attempt, r.operation_id, null), lookUntil);
    await s.commit({ moves, patch: { attempt: r.attempt + 1, next_poll_at: Math.max(next, r.not_before) } });
    return;
  }
  // By the deadline the provider shows no job. That proves nothing: a create of ours that reached it may still be held
  // there and execute later (a connection cut by a crash or a timeout does not stop it). `cancelled` and `failed`
  // would be claims about a job we cannot see (client-protocol.md: cancelled only when the provider said so or
  // before any create was sent; failed only when the provider said so), so the operation ends in what it knows.
  if (r.cancel) return giveUpCancel(s, l.call, moves, 'the cancel deadline passed and the provider shows no job yet');
  return giveUpResult(s, l.call, moves, 'the result deadline passed and the provider shows no job yet');
}

/**
 * The cancel deadline passed while we still could not learn whether a job exists (lookups refused or a create
 * possibly still in flight): say so — cancellation_unconfirmed — rather than wait on past the deadline.
 */
export async function giveUpCancel(
  s: OpStep,
  call?: CallOutcome,
  before: Move[] = [],
  why = 'cancel deadline passed before the provider showed whether a job exists',
): Promise<void> {
  const r = s.rec;
  const moves: Move[] = [...before];
  // A create attempt whose answer we never processed (crash, or still executing) is an unknown outcome.
  if (r.state === 'create_pending')
    moves.push({ to: 'create_unknown', evidence: 'create_ambiguous', cause: 'an earlier create attempt was never answered', call });
  moves.push({
    to: 'cancel_requested',
    evidence: 'cancel_intent',
    cause: `cancel asked by ${r.cancel!.actor}; whether a job exists is still unknown`,
  });
  moves.push({ to: 'cancellation_unconfirmed', evidence: 'cancel_deadline', cause: why, call });
  await s.commit({ moves, patch: { reason: 'cancel deadline passed with the job unknown' } });
}

/** The result deadline passed with the job still unknown (lookups refused, or none shown yet): time out honestly, stop polling. */
export async function giveUpResult(
  s: OpStep,
  call?: CallOutcome,
  before: Move[] = [],
  why = 'result deadline reached while the provider would not say whether a job exists',
): Promise<void> {
  await s.commit({
    moves: [
      ...before,
      { to: 'observing', evidence: 'result_deadline', cause: why, call },
      { to: 'result_timed_out', evidence: 'result_deadline', cause: 'result deadline passed before the job was known, let alone final' },
    ],
    patch: { reason: 'result deadline passed with the job unknown' },
  });
}
