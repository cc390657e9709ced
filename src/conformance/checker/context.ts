import type { InvariantId } from '../../contract/invariants.js';
import type { CheckOptions, ProviderJob, RunEvidence } from './evidence.js';
import { indexJournal, type JobFacts, type JournalIndex } from './journal-index.js';
import { linkOperations, type OperationView } from './link.js';
import { linkDialectOperations } from './link-dialect.js';
import { linkProfileOperations } from './link-profile.js';
import { delivered, ms } from './helpers.js';
import type { Failure } from './verdict.js';

/** What every invariant module gets: the evidence, indexed and linked once. */
export interface CheckContext {
  evidence: RunEvidence;
  /** The wire dialect of the run: `native`, or a real API whose batches are linked by custom_id. */
  dialect: RunEvidence['dialect'];
  /** The API profile of the run, when the client spoke one. */
  profile: RunEvidence['profile'];
  /** The API takes no idempotency key (a dialect, or a keyless profile): I2 and I10 have no key to judge. */
  keyless: boolean;
  options: CheckOptions;
  journal: JournalIndex;
  operations: OperationView[];
  providerJob(jobId: string): ProviderJob | undefined;
  jobFacts(jobId: string): JobFacts | undefined;
  /** Worker ids seen in the journal or in harness events: history actors that are workers. */
  workerIds: Set<string>;
}

/** not applicable: the run gave the invariant nothing to judge. */
export interface Judgement {
  applicable: boolean;
  failures: Failure[];
}

export interface InvariantCheck {
  id: InvariantId;
  judge(ctx: CheckContext): Judgement;
}

export function buildContext(evidence: RunEvidence): CheckContext {
  const journal = indexJournal(evidence);
  const jobs = new Map(evidence.jobs.map((j) => [j.job_id, j]));
  const workerIds = new Set<string>();
  for (const r of journal.requests) if (r.worker_id) workerIds.add(r.worker_id);
  for (const h of evidence.harness) if (h.worker_id) workerIds.add(h.worker_id);
  return {
    evidence,
    dialect: evidence.dialect,
    profile: evidence.profile,
    keyless: evidence.dialect !== 'native' || evidence.profile?.keyed === false,
    options: evidence.options,
    journal,
    operations: evidence.profile
      ? linkProfileOperations(evidence, journal.requests)
      : evidence.dialect === 'native'
        ? linkOperations(evidence, journal.requests)
        : linkDialectOperations(evidence, journal.requests),
    providerJob: (id) => jobs.get(id),
    jobFacts: (id) => journal.jobs.get(id),
    workerIds,
  };
}

/** The job the operation is about: the one its record names if it created it, else the last it created. */
export function mainJob(op: OperationView): string | undefined {
  const named = op.record?.remote_job_id;
  return named && op.jobIds.includes(named) ? named : op.jobIds.at(-1);
}

/**
 * When the client could first know a job's id: a delivered answer carrying it, any request it sent naming it,
 * a delivered webhook about it, or a delivered reconciliation list of the operation after the job existed.
 */
export function jobKnownAt(ctx: CheckContext, op: OperationView, jobId: string): number | undefined {
  const created = ctx.jobFacts(jobId)?.createdAt ?? -Infinity;
  const times: number[] = [];
  for (const r of op.requests) {
    if (r.job_id === jobId && (r.route !== 'create' || delivered(r))) times.push(ms(r.at));
    if (r.route === 'list' && delivered(r) && ms(r.at) >= created) times.push(ms(r.at));
  }
  for (const w of ctx.jobFacts(jobId)?.webhooks ?? []) if (w.outcome === 'delivered') times.push(ms(w.at));
  return times.length ? Math.min(...times) : undefined;
}

/**
 * The earliest the client could know, from its creates, that one of them made `jobId`: when an answer naming the job
 * came; at once after a reset (the connection broke, so it looks the key up); only at the create deadline (capped by
 * the result deadline) after a hang or a held answer it hung up on. Until then it was waiting on its own create, which
 * it may do for the whole create window (I12 asks no more), so time to act on the job runs from here (I3, I4).
 */
export function createKnowableAt(ctx: CheckContext, op: OperationView, jobId: string): number {
  const created = ctx.jobFacts(jobId)?.createdAt ?? -Infinity;
  const s = op.submission;
  const createBy = s ? ms(s.submitted_at) + Math.min(s.request.create_deadline_ms, s.request.result_deadline_ms) : -Infinity;
  const afterHang = Math.max(created, createBy);
  const times = op.creates
    .filter((c) => c.job_id === jobId)
    .map((c) => (delivered(c) ? ms(c.at) : c.lost_by === 'reset' ? created : afterHang));
  return times.length ? Math.min(...times) : afterHang;
}

/**
 * The end of the latest Retry-After wait imposed on the operation by a delivered non-200 answer sent at or
 * before `by`: until then a correct client could not ask the provider anything (I7), so it is not blamed for
 * missing what happened meanwhile.
 */
export function heldOffUntil(op: OperationView, by: number): number {
  let until = -Infinity;
  for (const r of op.requests) {
    if (r.retry_after !== null && r.status !== 200 && delivered(r) && ms(r.at) <= by)
      until = Math.max(until, ms(r.at) + r.retry_after * 1000);
  }
  return until;
}
