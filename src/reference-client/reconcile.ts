import { z } from 'zod';
import type { Job } from '../fake-provider/model/job.js';
import { nextDelay, RETRY_AFTER_MARGIN_MS, RETRY_POLICY } from './backoff.js';
import type { CallOutcome } from './http.js';
import { jobOf, remoteFacts } from './job-answer.js';
import type { Move, OpStep } from './op-step.js';
import { sendCreate } from './create.js';

/**
 * After an ambiguous create the client does not guess: it asks the provider what our key (and, failing that, our
 * client_ref) created, then replays the same key and holds the replay to what the lookup showed. With a cancel
 * intent or past the create deadline it only looks, never creates.
 */
export type Lookup =
  | { kind: 'found'; job: Job; call: CallOutcome }
  | { kind: 'none'; call: CallOutcome }
  | { kind: 'conflict'; ids: string[]; call: CallOutcome }
  | { kind: 'unclear'; call: CallOutcome };

const ListSchema = z.object({ data: z.array(z.unknown()) });

async function list(s: OpStep, query: string): Promise<{ jobs: Job[] | null; call: CallOutcome }> {
  const o = await s.send({ route: 'list', method: 'GET', path: `/v1/jobs?${query}` });
  if (o.kind !== 'answer' || o.status !== 200) return { jobs: null, call: o };
  const parsed = ListSchema.safeParse(o.json);
  if (!parsed.success) return { jobs: null, call: o };
  const jobs = parsed.data.data.map(jobOf).filter((j): j is Job => j !== null && j.client_ref === s.rec.operation_id);
  return { jobs, call: o };
}

function judge(jobs: Job[], call: CallOutcome): Lookup | null {
  const ids = [...new Set(jobs.map((j) => j.job_id))];
  if (ids.length > 1) return { kind: 'conflict', ids, call };
  return ids.length === 1 ? { kind: 'found', job: jobs[0]!, call } : null;
}

export async function lookupJob(s: OpStep): Promise<Lookup> {
  const byKey = await list(s, `idempotency_key=${encodeURIComponent(s.rec.idempotency_key)}`);
  if (!byKey.jobs) return { kind: 'unclear', call: byKey.call };
  const k = judge(byKey.jobs, byKey.call);
  if (k) return k;
  const byRef = await list(s, `client_ref=${encodeURIComponent(s.rec.operation_id)}`);
  if (!byRef.jobs) return { kind: 'unclear', call: byRef.call };
  return judge(byRef.jobs, byRef.call) ?? { kind: 'none', call: byRef.call };
}

export async function reconcileStep(s: OpStep): Promise<void> {
  const r = s.rec;
  const l = await lookupJob(s);
  const now = s.now();
  if (l.kind === 'unclear') {
    const o = l.call;
    const notBefore = o.kind === 'answer' && o.retryAfterMs !== null ? now + o.retryAfterMs + RETRY_AFTER_MARGIN_MS : r.not_before;
    s.commit({ patch: { attempt: r.attempt + 1, not_before: notBefore, next_poll_at: Math.max(now + nextDelay(RETRY_POLICY, r.attempt, r.operation_id, null), notBefore) } });
    return;
  }
  if (l.kind === 'conflict') {
    s.commit({
      moves: [{ to: 'needs_attention', evidence: 'contract_violation', cause: `provider shows several jobs for one key: ${l.ids.join(', ')}`, call: l.call, jobId: l.ids[0], otherJobId: l.ids[1] }],
      patch: { remote_job_id: l.ids[0]!, conflicting_job_id: l.ids[1]!, reason: 'several jobs for one idempotency key' },
    });
    return;
  }
  const found = l.kind === 'found' ? l.job : null;
  const moves: Move[] = [];
  const what = found ? `lookup shows job ${found.job_id}` : 'lookup shows no job for this operation';
  if (r.state === 'create_unknown') moves.push({ to: 'reconciliation', evidence: 'lookup_answer', cause: what, call: l.call, jobId: found?.job_id ?? null, jobState: found?.state ?? null });

  if (found) {
    const facts = { ...remoteFacts(found), remote_job_id: found.job_id, attempt: 0, next_poll_at: now };
    if (r.cancel) {
      if (r.state === 'create_pending') moves.push({ to: 'accepted', evidence: 'lookup_answer', cause: what, call: l.call, jobId: found.job_id, jobState: found.state });
      moves.push({ to: 'cancel_requested', evidence: r.state === 'create_pending' ? 'cancel_intent' : 'lookup_answer', cause: `cancel asked by ${r.cancel.actor}; ${what}`, jobId: found.job_id });
      s.commit({ moves, patch: facts });
      return;
    }
    if (r.state === 'create_pending' || now >= r.create_deadline_at) {
      moves.push({ to: 'accepted', evidence: 'lookup_answer', cause: `${what}; adopting it without another create`, call: l.call, jobId: found.job_id, jobState: found.state });
      s.commit({ moves, patch: facts });
      return;
    }
    await sendCreate(s, found.job_id, moves);
    return;
  }
  // A create of ours may still be on its way (held or delayed): "no job" is only conclusive once it has ended.
  const settledAt = (r.last_create_at ?? 0) + s.env.http.timeoutMs + 1000;
  if ((r.cancel || now >= r.create_deadline_at) && now < settledAt) {
    s.commit({ moves, patch: { next_poll_at: settledAt } });
    return;
  }
  if (r.cancel) {
    moves.push({ to: 'cancelled', evidence: 'lookup_answer', cause: `cancel asked by ${r.cancel.actor}; provider shows no job, none will be created`, call: l.call });
    s.commit({ moves, patch: { reason: r.cancel.reason } });
    return;
  }
  if (now >= r.create_deadline_at) {
    moves.push({ to: 'failed', evidence: 'lookup_answer', cause: 'create deadline passed and the provider shows no job', call: l.call });
    s.commit({ moves, patch: { reason: 'create deadline passed without a job' } });
    return;
  }
  await sendCreate(s, null, moves);
}
