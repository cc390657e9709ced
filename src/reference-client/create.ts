import { fingerprint } from '../lib/canonical-json.js';
import { giveUpAt, governingDeadline, heldBack, MIN_REQUEST_MS, requestTimeout, retryAt } from './deadlines.js';
import { nextDelay, POLL_POLICY, RETRY_AFTER_MARGIN_MS, RETRY_POLICY } from './backoff.js';
import { collectStart } from './collect.js';
import { retryDelay, type CallOutcome } from './http.js';
import { describe, remoteFacts, terminalMove } from './job-answer.js';
import type { Move, OpStep } from './op-step.js';
import type { Job } from '../contract/jobs.js';
import type { OperationPatch, OperationRow } from './types.js';
import type { WireCreate, WireLookup } from './wire/adapter.js';
import { createBody } from './wire/native.js';

type Found = Extract<WireLookup, { kind: 'found' }>;

/**
 * Create: the same request every time (with one idempotency key per operation where the API has keys), until the
 * create deadline. The attempt is made durable (count and time) before the request leaves, in a write that fails if
 * a cancel was recorded meanwhile.
 */

/** The request's identity, whatever the wire: the native create body without the per-worker webhook URL. */
export function requestFingerprint(kind: string, input: Record<string, unknown>, operationId: string): string {
  return fingerprint(createBody({ kind, input, operation_id: operationId }, null));
}

/**
 * Creating stops at the create deadline, or at the result deadline when that comes first: a job created after its
 * result deadline could only ever be abandoned.
 */
export function createBy(r: Pick<OperationRow, 'create_deadline_at' | 'result_deadline_at'>): number {
  return Math.min(r.create_deadline_at, r.result_deadline_at);
}

/**
 * When a successor may step the operation if this worker dies with the create in flight. With idempotency keys, once
 * the lease has run out: its lookup and its replay of the same key cannot make a second job, and waiting longer could
 * spend the create window of a worker that died before its create left. Without keys, once the create could also
 * have timed out, so that the lookup sees what it made. Never later than a whole lookup before the give-up time — a
 * first step past it ends the operation without a lookup, while the create may have made a job.
 */
function resumeAfterCreate(r: OperationRow, now: number, leaseMs: number, keyed: boolean): number {
  const lastLookup = giveUpAt(governingDeadline(r)!) - MIN_REQUEST_MS;
  const wait = keyed ? leaseMs : requestTimeout(r, 'create', now) + leaseMs;
  return Math.max(now, Math.min(now + wait, lastLookup));
}

/** Send (or replay) the create. `known` is what a lookup showed for our key: a different answer is a conflict. */
export async function sendCreate(s: OpStep, known: Found | null, preMoves: Move[]): Promise<void> {
  const r = s.rec;
  const webhookUrl = s.wire.webhookPerJob ? (r.webhook_url ?? s.env.webhookUrl) : null;
  await s.commit({
    moves: preMoves,
    patch: {
      create_attempts: r.create_attempts + 1,
      last_create_at: s.now(),
      webhook_url: webhookUrl,
      next_poll_at: resumeAfterCreate(r, s.now(), s.env.leaseMs, s.wire.idempotencyKeys),
    },
    requireNoCancel: true,
    audit: [
      {
        at: s.now(),
        actor: s.env.workerId,
        kind: 'intent',
        operation_id: r.operation_id,
        detail: { action: 'create', attempt: r.create_attempts + 1, idempotency_key: r.idempotency_key },
      },
    ],
  });
  await handleCreateAnswer(s, await s.wire.create(s, webhookUrl), known);
}

async function handleCreateAnswer(s: OpStep, c: WireCreate, known: Found | null): Promise<void> {
  const r = s.rec;
  const now = s.now();
  if (c.kind === 'unreadable') {
    await s.commit({
      moves: [{ to: 'needs_attention', evidence: 'contract_violation', cause: 'create answer without a readable job', call: c.call }],
      patch: { reason: 'unreadable create answer' },
    });
    return;
  }
  if (c.kind === 'created') {
    const { job, jobId, call: o } = c;
    // An earlier replay of this key named another job, unconfirmed (its worker died, or its lookup went unanswered):
    // two answers for one key, so one of them is not the key's job, whatever a lookup shows.
    if (c.replayed && r.conflicting_job_id !== null && r.conflicting_job_id !== jobId)
      return replayConflict(s, [], o, r.conflicting_job_id, jobId, `an earlier replay of our key answered ${r.conflicting_job_id}`, {
        reason: 'provider answered replays of one create with different job ids',
      });
    let shown = known?.job.job_id ?? null;
    let lookup: Found | null = null;
    // A Retry-After on the lookup (a 429 or 503) holds every next request back, the status reads of the job too (I7).
    let notBefore = r.not_before;
    if (!shown && c.replayed) {
      // A replay we cannot compare with anything yet: ask the provider what our key really created. The job it named
      // is written first, unconfirmed: a worker that dies during the lookup leaves it to its successor, whose
      // reconciliation stops on a conflict (both ids kept, I10) instead of adopting the key's job unawares.
      await s.commit({ patch: { conflicting_job_id: jobId } });
      const l = await s.wire.find(s, createBy(r));
      if (l.kind === 'found') {
        shown = l.job.job_id;
        lookup = l;
      }
      if (l.call.kind === 'answer' && l.call.retryAfterMs !== null)
        notBefore = Math.max(notBefore, s.now() + l.call.retryAfterMs + RETRY_AFTER_MARGIN_MS);
      // A replay's job is taken only once a lookup confirms it (a provider may answer a replay with another job, I10):
      // unchecked, the create stays of unknown outcome and reconciliation asks again.
      if (l.kind === 'unclear')
        return unknownOutcome(s, o, `replayed create answered job ${jobId}, the lookup to check it did not answer`, notBefore);
    }
    if (shown && shown !== jobId)
      return replayConflict(s, [], o, shown, jobId, `but our key created ${shown}`, {
        remote_job_id: shown,
        reason: 'provider answered a replayed create with a different job id',
      });
    if (job && job.state === 'succeeded' && job.result) {
      await s.commit({
        moves: [
          {
            to: 'result_collecting',
            evidence: 'create_sync_result',
            cause: 'create answered with a finished job',
            call: o,
            jobState: job.state,
            jobId,
          },
        ],
        patch: {
          ...remoteFacts(job),
          remote_job_id: jobId,
          conflicting_job_id: null,
          attempt: 0,
          next_poll_at: now,
          expected_result: {
            url: job.result.url,
            sha256: job.result.sha256,
            items_total: job.result.items_total,
            items_failed: job.result.items_failed,
          },
        },
      });
      return;
    }
    // A create may answer with a job that already ended otherwise (a sync job that failed or expired, a replay of
    // one since cancelled): that answer is as good as a status read of it, and the operation ends on it. A replay
    // answers as the first create did; the lookup made after it is newer, and a job it shows ended ends the operation
    // too (reading it again first would lose it whenever every status read hangs, I3), as a lookup does in reconcile.
    const ended = lookup
      ? terminalMove(lookup.job, 'status_answer', lookup.call, `the lookup after the replayed create shows the job ${lookup.job.state}`)
      : job && job.state !== 'succeeded'
        ? terminalMove(job, 'status_answer', o, `the create answer (${o.status}) shows the job ${job.state}`)
        : null;
    await s.commit({
      moves: [
        {
          to: 'accepted',
          evidence: 'create_accepted',
          cause: `provider accepted the create (${o.status})`,
          call: o,
          jobState: job?.state ?? 'queued',
          jobId,
        },
        ...(ended ? [ended.move] : []),
      ],
      patch: {
        ...(lookup ? remoteFacts(lookup.job) : job ? remoteFacts(job) : { remote_state: 'queued' as const }),
        remote_job_id: jobId,
        conflicting_job_id: null,
        attempt: 0,
        next_poll_at: heldBack(
          ended ? now : s.after(nextDelay(POLL_POLICY, 0, r.operation_id, o.retryAfterMs)),
          s.now(),
          governingDeadline(r)!,
          notBefore,
        ),
        not_before: notBefore,
        ...ended?.patch,
        ...(ended && lookup ? collectStart(r, ended.move.to, lookup.job) : {}),
      },
    });
    return;
  }
  const o = c.call;
  if (c.kind === 'ambiguous') {
    const notBefore = o.kind === 'answer' && o.retryAfterMs !== null ? now + o.retryAfterMs + RETRY_AFTER_MARGIN_MS : r.not_before;
    if (known) return adoptShown(s, known, o, notBefore);
    return unknownOutcome(s, o, `create outcome unknown (${describe(o)})`, notBefore);
  }
  if (c.kind === 'not_done') {
    // Not executed, or still executing: the same request again, after the provider's wait.
    const wait = c.call.retryAfterMs ?? 1000;
    const notBefore = now + wait + RETRY_AFTER_MARGIN_MS;
    await s.commit({
      patch: {
        attempt: r.attempt + 1,
        not_before: notBefore,
        next_poll_at: retryAt(now, nextDelay(RETRY_POLICY, r.attempt, r.operation_id, wait), governingDeadline(r)!, notBefore),
      },
    });
    return;
  }
  await s.commit({
    moves: [{ to: 'failed', evidence: 'create_refused', cause: `create refused: ${describe(o)}`, call: o }],
    patch: { reason: `create refused: ${describe(o)}` },
  });
}

/**
 * The replay meant to confirm what our key's lookup showed went unanswered: the lookup already is the provider's word
 * on what the key created, so the operation goes on with that job. Back to create_unknown it would forget a job it has
 * seen, and one more refused lookup before the deadline would lose a result that is there (I3).
 */
function adoptShown(s: OpStep, known: Found, o: CallOutcome, notBefore: number): Promise<void> {
  const cause = `lookup shows job ${known.job.job_id}; the replay confirming it went unanswered (${describe(o)}), adopting it`;
  const next = heldBack(s.now(), s.now(), governingDeadline(s.rec)!, notBefore);
  return adoptFound(s, known.job, known.call, [], cause, { not_before: notBefore, next_poll_at: next });
}

/**
 * Go on with the job our key's lookup showed, after `moves`. A lookup that shows the job already ended is as good as a
 * status read of it (as a create answer is): end on it now; reading it again first would lose it whenever every status
 * read hangs (I3). A job done only after the result deadline gets one fetch (collect.ts).
 */
export async function adoptFound(
  s: OpStep,
  job: Job,
  call: CallOutcome,
  moves: Move[],
  cause: string,
  patch: OperationPatch,
): Promise<void> {
  const r = s.rec;
  const ended = terminalMove(job, 'status_answer', call, `the lookup shows the job ${job.state}`);
  await s.commit({
    moves: [
      ...moves,
      { to: 'accepted', evidence: 'lookup_answer', cause, call, jobId: job.job_id, jobState: job.state },
      ...(ended ? [ended.move] : []),
    ],
    patch: {
      ...remoteFacts(job),
      remote_job_id: job.job_id,
      conflicting_job_id: null,
      attempt: 0,
      ...patch,
      ...ended?.patch,
      ...(ended ? collectStart(r, ended.move.to, job) : {}),
    },
  });
}

/**
 * The create's outcome is unknown: reconciliation looks next. After a create that timed out the lookup goes at once
 * (retryDelay): the timeout already waited as long as any backoff, and backing off on top can push the lookup to the
 * result deadline (I3). A Retry-After never carries the next step past the give-up time (retryAt), or a long hold
 * keeps the operation open past its grace (I12).
 */
async function unknownOutcome(s: OpStep, o: CallOutcome, cause: string, notBefore: number): Promise<void> {
  const r = s.rec;
  await s.commit({
    moves: [{ to: 'create_unknown', evidence: 'create_ambiguous', cause, call: o }],
    patch: {
      attempt: r.attempt + 1,
      not_before: notBefore,
      next_poll_at: retryAt(s.now(), retryDelay(o, 0, r.operation_id), governingDeadline(r)!, notBefore),
    },
  });
}

/**
 * The provider answered one key with two jobs (a replay against a lookup, or against an earlier replay): stop in
 * needs_attention with both ids, `jobId` the one taken for the key's where one is known, and make no further call.
 */
export async function replayConflict(
  s: OpStep,
  moves: Move[],
  call: CallOutcome,
  jobId: string,
  otherJobId: string,
  against: string,
  patch: OperationPatch,
): Promise<void> {
  await s.commit({
    moves: [
      ...moves,
      {
        to: 'needs_attention',
        evidence: 'replay_conflict',
        cause: `replayed create answered job ${otherJobId}, ${against}`,
        call,
        jobId,
        otherJobId,
      },
    ],
    patch: { ...patch, conflicting_job_id: otherJobId },
  });
}
