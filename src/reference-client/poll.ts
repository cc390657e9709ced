import type { OperationState } from '../contract/client-protocol.js';
import { nextDelay, POLL_POLICY, RETRY_AFTER_MARGIN_MS } from './backoff.js';
import { collectStart } from './collect.js';
import { giveUpAt, noRoomToRead, retryAt } from './deadlines.js';
import { retryDelay } from './http.js';
import { describe, isBackOff, remoteFacts, terminalMove } from './job-answer.js';
import type { OpStep } from './op-step.js';
import type { EvidenceKind } from './state-machine.js';

/**
 * Observation: status reads on a capped, jittered backoff that never undercuts Retry-After. Progress is stored as
 * information only; the state moves on the job's `state` alone. A deadline is honoured with one last read at the
 * deadline itself, so a job that finished just in time is not reported as timed out.
 */
export interface PollRules {
  deadlineAt: number;
  onDeadline: { to: OperationState; evidence: EvidenceKind; cause: string };
}

/** One status read and what follows from it; the caller's rules say which deadline applies. */
export async function pollOnce(s: OpStep, rules: PollRules): Promise<void> {
  const r = s.rec;
  const now = s.now();
  const pastDeadline = now >= rules.deadlineAt;
  if (r.not_before > now) {
    // Only reached past the give-up time: the provider told us not to ask yet, so we stop without a request.
    await s.commit({ moves: [{ ...rules.onDeadline, detail: 'deadline passed during a Retry-After hold' }] });
    return;
  }
  if (noRoomToRead(now, rules.deadlineAt)) {
    await s.commit({ moves: [{ ...rules.onDeadline, detail: 'no time left before the give-up for another read' }] });
    return;
  }
  // Last resort, past the deadline after repeated failed status reads: every other read takes the list route.
  const failures = r.read_failures ?? 0;
  const read = await s.wire.read(s, pastDeadline && failures >= 3 && failures % 2 === 1);
  const o = read.call;
  const afterNow = s.now();
  if (read.kind === 'job') {
    const job = read.job;
    const facts = { ...remoteFacts(job), poll_count: r.poll_count + 1, read_failures: 0 };
    const t = terminalMove(job, 'status_answer', o, `job ${job.state}`);
    if (t) {
      // A job that succeeded only after the result deadline gets one fetch, no retries (collect.ts).
      await s.commit({ moves: [t.move], patch: { ...facts, ...t.patch, ...collectStart(r, t.move.to, job), next_poll_at: afterNow } });
      return;
    }
    if (pastDeadline) {
      await s.commit({ moves: [{ ...rules.onDeadline, call: o, jobState: job.state, jobId: job.job_id }], patch: facts });
      return;
    }
    // Poll on the backoff, but be there at the deadline for the last read.
    const advice = o.kind === 'answer' ? o.retryAfterMs : null;
    const next = Math.min(s.after(nextDelay(POLL_POLICY, r.attempt, r.operation_id, advice)), Math.max(rules.deadlineAt, r.not_before));
    const moves =
      r.state === 'accepted'
        ? [
            {
              to: 'observing' as const,
              evidence: 'status_answer' as const,
              cause: `job ${job.state}`,
              call: o,
              jobState: job.state,
              jobId: job.job_id,
            },
          ]
        : [];
    await s.commit({ moves, patch: { ...facts, attempt: r.attempt + 1, next_poll_at: next } });
    return;
  }
  if (read.kind === 'gone') {
    await s.commit({
      moves: [
        {
          to: 'needs_attention',
          evidence: 'contract_violation',
          cause: 'provider no longer knows our job',
          call: o,
          jobId: r.remote_job_id,
        },
      ],
      patch: { reason: 'job_not_found on status read' },
    });
    return;
  }
  // 429/503/5xx/no answer: nothing learnt. Back off, and respect any hold the provider asked for.
  const notBefore = isBackOff(o) ? afterNow + o.retryAfterMs! + RETRY_AFTER_MARGIN_MS : r.not_before;
  if (afterNow >= giveUpAt(rules.deadlineAt)) {
    await s.commit({
      moves: [{ ...rules.onDeadline, call: o, detail: `last read after the deadline got ${describe(o)}` }],
      patch: { not_before: notBefore },
    });
    return;
  }
  const delay = retryDelay(o, r.attempt, r.operation_id);
  await s.commit({
    patch: {
      attempt: r.attempt + 1,
      read_failures: (r.read_failures ?? 0) + 1,
      not_before: notBefore,
      next_poll_at: retryAt(afterNow, delay, rules.deadlineAt, notBefore),
    },
  });
}
