import { DIALECT_NAMES } from '../../contract/dialects.js';
import type { Dialect } from '../../contract/journal.js';
import type { Job } from '../../contract/jobs.js';
import { isAmbiguous, type Answer, type CallOutcome, type CallSpec } from '../http.js';
import type { ExpectedResult, OperationRow } from '../types.js';
import type { Verification } from '../verify-results.js';
import type { WireTraits } from './traits.js';

/**
 * The wire seam: the one place the reference client speaks an API. The durable machinery (record before create,
 * leases, fencing, backoff, Retry-After, confirmed cancel, verification, audit) is the same for every API and never
 * asks which one it speaks; an adapter turns each of its five acts into requests and classifies the answers.
 * Native /v1/jobs, OpenAI Batch and Anthropic Message Batches are adapters (docs/spec/dialects.md); any API
 * profile is served by one more, built from the profile (profile.ts, docs/spec/profiles.md).
 *
 * The contract every adapter keeps:
 * - Requests go out only through `s.send` (it checks the lease, applies the route's deadline, audits the call),
 *   named by the act they serve: `create` (an upload before the create too), `status`, `list`, `cancel`, `results`.
 * - An adapter classifies, it never decides: no state moves, no writes, no retries, no sleeping. Each outcome
 *   carries the `call` it was classified from, unchanged — real status, headers, request id and Retry-After (a
 *   profile holds Retry-After within the bounds its API documents, and says so) — from
 *   which the steps take the HTTP facts every API shares (no answer or 5xx: ambiguous; 429/503 with Retry-After:
 *   hold; 404 to a cancel) and the evidence they record.
 * - Whatever the API says about the job is mapped onto the client's job view (`Job`, provider-api.md), so the state
 *   machine decides the same way whatever the wire. A job view is only ever the record's own job: an answer that
 *   names another job is `gone` (read) or not ours (find).
 * - An adapter keeps no state between calls: all it needs is the record (`s.rec`: input, ids, times) and what the
 *   step passes in. One adapter object serves every operation and every worker.
 */
export type { Dialect, WireTraits };
export const DIALECTS: readonly Dialect[] = DIALECT_NAMES;

/** What an adapter may use of a worker's turn: the record and the leased, audited `send`. */
export interface WireStep {
  readonly rec: OperationRow;
  send(spec: Omit<CallSpec, 'traceId'>): Promise<CallOutcome>;
  now(): number;
  readonly env: { store: { findByRemoteJobId(jobId: string): Promise<OperationRow | undefined> } };
}

/** A create's answer. `not_done` and `refused` are answers the API gave; `ambiguous` may or may not have executed. */
export type WireCreate =
  /** A job exists: its id, and its view when the answer carried one (a 202 may carry the id alone). */
  | { kind: 'created'; jobId: string; job: Job | null; replayed: boolean; call: Answer }
  /** A success answer without a job the client can read: a broken contract. */
  | { kind: 'unreadable'; call: Answer }
  /** Not executed, or still executing: the same create again after the API's wait (no second job can result). */
  | { kind: 'not_done'; call: Answer }
  | { kind: 'ambiguous'; call: CallOutcome }
  | { kind: 'refused'; call: Answer };

export type WireRead =
  | { kind: 'job'; job: Job; call: CallOutcome }
  /** The API no longer knows the record's job (404, or an answer about another job). */
  | { kind: 'gone'; call: CallOutcome }
  | { kind: 'unclear'; call: CallOutcome };

/** What the API shows for the operation after a lost create: one job, none, several (a person decides), or no clear answer. */
export type WireLookup =
  | { kind: 'found'; job: Job; call: CallOutcome }
  | { kind: 'none'; call: CallOutcome }
  | { kind: 'conflict'; ids: string[]; call: CallOutcome }
  | { kind: 'unclear'; call: CallOutcome };

export type WireCancel =
  /** The API took the cancel; the job view when the answer carried one. */
  | { kind: 'accepted'; job: Job | null; call: Answer }
  /** Refused because the job had already ended, and the answer shows how. */
  | { kind: 'ended'; job: Job; call: Answer }
  /** The API cannot cancel a job (405/501, or a profile without a cancel route: then nothing was sent). */
  | { kind: 'unsupported'; call: CallOutcome | null }
  /** Anything else: the step reads it as HTTP (404, refusal, ambiguity, Retry-After). */
  | { kind: 'other'; call: CallOutcome };

export interface WireResults {
  call: CallOutcome;
  /** Where the verified body came from (the record's `result.location`). */
  location: string;
  /** Set only for a 200 answer: whether the body is what this operation asked for, and its digest and counts. */
  verification: Verification | null;
  /** The API says the results no longer exist (native 410; a batch's file or URL answering 404): nothing to fetch. */
  gone: boolean;
}

export interface WireAdapter extends WireTraits {
  /**
   * Send the create for the record (its `kind`, `input` and `operation_id`) — the same request every time it is
   * sent, with the record's `idempotency_key` wherever the API takes one (a header, a body field, a client-chosen
   * id) when `idempotencyKeys`. Several requests may make one create (an upload first); an answer that made no job
   * is classified as the create's. `webhookUrl` is null unless `webhookPerJob`.
   */
  create(s: WireStep, webhookUrl: string | null): Promise<WireCreate>;
  /**
   * Read the record's job (`remote_job_id`). `viaList` asks for another route to the same view, used past a
   * deadline after repeated failed status reads; an API without one reads the status route again.
   */
  read(s: WireStep, viaList: boolean): Promise<WireRead>;
  /**
   * After a lost create: the job this operation's create made, if the API shows one — by key, client reference,
   * metadata or whatever the API offers — never one another operation of this client already owns (`claimedByOther`).
   * `none` is a claim that no such job exists, after which the create is sent again: an API that cannot tell (no
   * lookup at all, or a list that may hide it) answers `unclear`, and the client waits out its deadline instead.
   * `createBy` is when the client stops creating: an ambiguity it cannot wait out past then is a `conflict`.
   */
  find(s: WireStep, createBy: number): Promise<WireLookup>;
  /** Ask the API to cancel the record's job, once; the step decides whether an unconfirmed cancel is sent again. */
  cancel(s: WireStep, reason: string): Promise<WireCancel>;
  /**
   * Fetch the results of the record's succeeded job and verify them against what this API lets the client check:
   * `expected` is what the job view announced (native: the digest and counts; a batch API: the submitted input's ids).
   */
  results(s: WireStep, expected: ExpectedResult): Promise<WireResults>;
}

/**
 * A batch API's create answer (the dialects): a 200 or 202 with the batch mapped onto the job view, or unreadable;
 * 408/409/429 were not executed (decision record: lost create). Batch APIs have no replay header.
 */
export function batchCreate(o: CallOutcome, job: Job | null): WireCreate {
  if (o.kind === 'no_answer' || isAmbiguous(o)) return { kind: 'ambiguous', call: o };
  if (o.status === 200 || o.status === 202)
    return job ? { kind: 'created', jobId: job.job_id, job, replayed: false, call: o } : { kind: 'unreadable', call: o };
  if (o.status === 408 || o.status === 409 || o.status === 429) return { kind: 'not_done', call: o };
  return { kind: 'refused', call: o };
}

/** A batch API's cancel answer: 200 or 202 took it, with the batch it carried; a refusal is read again by the step. */
export function batchCancel(o: CallOutcome, job: Job | null): WireCancel {
  return o.kind === 'answer' && (o.status === 200 || o.status === 202) ? { kind: 'accepted', job, call: o } : { kind: 'other', call: o };
}

/**
 * A status read's outcome from the batch its answer held: a 404, or another batch's id, means the record's batch is
 * gone; an answer without a batch is unclear; otherwise the batch mapped onto the job view.
 */
export function readOutcome<B extends { id: string }>(
  s: WireStep,
  call: CallOutcome,
  batch: B | null,
  toJob: (b: B, rec: OperationRow) => Job,
): WireRead {
  if (call.kind === 'answer' && call.status === 404) return { kind: 'gone', call };
  if (batch && batch.id !== s.rec.remote_job_id) return { kind: 'gone', call };
  return batch ? { kind: 'job', job: toJob(batch, s.rec), call } : { kind: 'unclear', call };
}

/** A batch's results file or URL that answers 404 or 410 is gone. */
export function batchResultsGone(o: CallOutcome): boolean {
  return o.kind === 'answer' && (o.status === 404 || o.status === 410);
}

/** A job another operation of this client already owns must never be adopted by a recovery. */
export async function claimedByOther(s: WireStep, jobId: string): Promise<boolean> {
  const owner = await s.env.store.findByRemoteJobId(jobId);
  return owner !== undefined && owner.operation_id !== s.rec.operation_id;
}

export function isoOf(unixSeconds: number | null | undefined): string | null {
  return typeof unixSeconds === 'number' ? new Date(unixSeconds * 1000).toISOString() : null;
}
