import { fingerprint } from '../lib/canonical-json.js';
import { giveUpAt, governingDeadline, MIN_REQUEST_MS, requestTimeout, retryAt } from './deadlines.js';
import { nextDelay, POLL_POLICY, RETRY_AFTER_MARGIN_MS, RETRY_POLICY } from './backoff.js';
import { retryDelay } from './http.js';
import { describe, remoteFacts, terminalMove } from './job-answer.js';
import type { Move, OpStep } from './op-step.js';
import type { OperationRow } from './types.js';
import type { WireCreate } from './wire/adapter.js';
import { createBody } from './wire/native.js';

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
 * When a successor may step the operation if this worker dies with the create in flight: once the create could have
 * timed out and the lease run out, but never later than a whole lookup before the give-up time — a first step past
 * it ends the operation without a lookup, while the create may have made a job.
 */
function resumeAfterCreate(r: OperationRow, now: number, leaseMs: number): number {
  const lastLookup = giveUpAt(governingDeadline(r)!) - MIN_REQUEST_MS;
  return Math.max(now, Math.min(now + requestTimeout(r, 'create', now) + leaseMs, lastLookup));
}

/** Send (or replay) the create. `knownJobId` is what a lookup showed for our key: a different answer is a conflict. */
export async function sendCreate(s: OpStep, knownJobId: string | null, preMoves: Move[]): Promise<void> {
  const r = s.rec;
  const webhookUrl = s.wire.webhookPerJob ? (r.webhook_url ?? s.env.webhookUrl) : null;
  await s.commit({
    moves: preMoves,
    patch: {
      create_attempts: r.create_attempts + 1,
      last_create_at: s.now(),
      webhook_url: webhookUrl,
      next_poll_at: resumeAfterCreate(r, s.now(), s.env.leaseMs),
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
  await handleCreateAnswer(s, await s.wire.create(s, webhookUrl), knownJobId);
}

async function handleCreateAnswer(s: OpStep, c: WireCreate, knownJobId: string | null): Promise<void> {
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
    let shown = knownJobId;
    if (!shown && c.replayed) {
      // A replay we cannot compare with anything yet: ask the provider what our key really created.
      const l = await s.wire.find(s, createBy(r));
      if (l.kind === 'found') shown = l.job.job_id;
    }
    if (shown && shown !== jobId) {
      await s.commit({
        moves: [
          {
            to: 'needs_attention',
            evidence: 'replay_conflict',
            cause: `replayed create answered job ${jobId}, but our key created ${shown}`,
            call: o,
            jobId: shown,
            otherJobId: jobId,
          },
        ],
        patch: { remote_job_id: shown, conflicting_job_id: jobId, reason: 'provider answered a replayed create with a different job id' },
      });
      return;
    }
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
    // one since cancelled): that answer is as good as a status read of it, and the operation ends on it.
    const ended =
      job && job.state !== 'succeeded'
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
        ...(job ? remoteFacts(job) : { remote_state: 'queued' as const }),
        remote_job_id: jobId,
        attempt: 0,
        next_poll_at: s.after(nextDelay(POLL_POLICY, 0, r.operation_id, o.retryAfterMs)),
        ...ended?.patch,
      },
    });
    return;
  }
  const o = c.call;
  if (c.kind === 'ambiguous') {
    const notBefore = o.kind === 'answer' && o.retryAfterMs !== null ? now + o.retryAfterMs + RETRY_AFTER_MARGIN_MS : r.not_before;
    // After a create that timed out the lookup goes at once (retryDelay): the timeout already waited as long as any
    // backoff, and backing off on top can push the lookup to the result deadline (I3). A Retry-After never carries
    // the next step past the give-up time (retryAt), or a long hold keeps the operation open past its grace (I12).
    await s.commit({
      moves: [{ to: 'create_unknown', evidence: 'create_ambiguous', cause: `create outcome unknown (${describe(o)})`, call: o }],
      patch: {
        attempt: r.attempt + 1,
        not_before: notBefore,
        next_poll_at: retryAt(now, retryDelay(o, 0, r.operation_id), governingDeadline(r)!, notBefore),
      },
    });
    return;
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
