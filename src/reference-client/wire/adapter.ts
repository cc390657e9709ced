import { DIALECT_NAMES } from '../../contract/dialects.js';
import type { Dialect } from '../../contract/journal.js';
import type { Job } from '../../contract/jobs.js';
import type { CallOutcome, CallSpec } from '../http.js';
import type { OperationRow } from '../types.js';
import type { Verification } from '../verify-results.js';

/**
 * The seam between the durable machinery (record before create, leases, fencing, backoff, confirmed cancel,
 * verification, audit) and a dialect's wire API (docs/spec/dialects.md). The native API needs no adapter: the steps
 * speak it directly. A dialect adapter maps each batch it reads onto the client's job view (a `Job`), so the state
 * machine decides the same way whatever the wire; answers keep their real status, headers and Retry-After.
 */
export type { Dialect };
export const DIALECTS: readonly Dialect[] = DIALECT_NAMES;

/** What a dialect adapter may use of a worker's turn: the record and the leased, audited `send`. */
export interface WireStep {
  readonly rec: OperationRow;
  send(spec: Omit<CallSpec, 'traceId'>): Promise<CallOutcome>;
  now(): number;
  readonly env: { store: { findByRemoteJobId(jobId: string): Promise<OperationRow | undefined> } };
}

export type WireRead =
  | { kind: 'job'; job: Job; call: CallOutcome }
  | { kind: 'gone'; call: CallOutcome }
  | { kind: 'unclear'; call: CallOutcome };
export type WireLookup =
  | { kind: 'found'; job: Job; call: CallOutcome }
  | { kind: 'none'; call: CallOutcome }
  | { kind: 'conflict'; ids: string[]; call: CallOutcome }
  | { kind: 'unclear'; call: CallOutcome };
export interface WireResults {
  call: CallOutcome;
  /** Where the verified body came from (the record's `result.location`). */
  location: string;
  /** Set only for a 200 answer. */
  verification: Verification | null;
}

export interface WireAdapter {
  readonly dialect: Exclude<Dialect, 'native'>;
  /** Create the batch (OpenAI uploads the file first). On success the answer's `json` is the job view. */
  create(s: WireStep): Promise<CallOutcome>;
  /** A create answer that says "not executed, come back later" (no batch was made). */
  createNotDone(o: CallOutcome): boolean;
  read(s: WireStep): Promise<WireRead>;
  /** After a lost create: the batch it made, if the account's list shows one (decision record: lost create). */
  find(s: WireStep, createBy: number): Promise<WireLookup>;
  /** On success (2xx) the answer's `json` is the job view. */
  cancel(s: WireStep): Promise<CallOutcome>;
  results(s: WireStep): Promise<WireResults>;
}

/** A 2xx answer whose body is replaced by the job view the steps read. */
export function withJob(o: CallOutcome, job: Job): CallOutcome {
  return o.kind === 'answer' ? { ...o, json: job } : o;
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

/** A batch another operation of this client already owns must never be adopted by a recovery. */
export async function claimedByOther(s: WireStep, batchId: string): Promise<boolean> {
  const owner = await s.env.store.findByRemoteJobId(batchId);
  return owner !== undefined && owner.operation_id !== s.rec.operation_id;
}

export function isoOf(unixSeconds: number | null | undefined): string | null {
  return typeof unixSeconds === 'number' ? new Date(unixSeconds * 1000).toISOString() : null;
}

/** 408/409/429: the dialect did not run the request (decision record: lost create). */
export function dialectNotDone(o: CallOutcome): boolean {
  return o.kind === 'answer' && (o.status === 408 || o.status === 409 || o.status === 429);
}
