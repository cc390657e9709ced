import type { Context } from 'hono';
import type { Effect, FiredFault } from '../model/journal.js';
import type { JobState } from '../model/job.js';
import type { Principal } from '../model/principals.js';
import type { Dialect } from '../model/journal.js';

/**
 * How a mount renders an error: the native API answers RFC 9457 problems; a dialect answers in its real API's own
 * error shape. `code` is jobproof's stable code (it goes to the journal whatever the shape on the wire).
 */
export type ErrorRenderer = (c: Ctx, status: number, code: string, detail: string, extras: { param?: string | null; [k: string]: unknown }, headers: Record<string, string>) => Response;

/** What a handler learns about its request, written to the journal once the answer is known. */
export interface JournalDraft {
  route: string | null;
  principal: Principal | null;
  idempotency_key: string | null;
  fingerprint: string | null;
  effect: Effect;
  job_id: string | null;
  job_state: JobState | null;
  client_ref: string | null;
  /** Tasks API: the task the request is about, and its state in the answer. */
  task_id: string | null;
  task_state: string | null;
  code: string | null;
  fault: FiredFault | null;
  delivery: 'delivered' | 'lost' | 'delayed';
  loss: 'reset' | 'hang' | null;
  listed?: Array<{ job_id: string; state: JobState }>;
  /** Dialects: the `custom_id`s of a batch's requests (create, upload), by which the judge links batches to operations. */
  custom_ids?: string[];
  /** Dialects: the file a request created or read (OpenAI Files). */
  file_id?: string;
}

export type Vars = {
  requestId: string;
  receivedAt: number;
  traceId: string | null;
  workerId: string | null;
  draft: JournalDraft;
  /** Which wire API the request came in on (set by the dialect's mount; native otherwise). */
  dialect?: Dialect;
  /** The mount's error shape; unset means RFC 9457 problems (native). */
  renderError?: ErrorRenderer;
};

export type Env = { Variables: Vars };
export type Ctx = Context<Env>;

export function newDraft(): JournalDraft {
  return {
    route: null, principal: null, idempotency_key: null, fingerprint: null, effect: 'none', job_id: null, job_state: null,
    client_ref: null, task_id: null, task_state: null, code: null, fault: null, delivery: 'delivered', loss: null,
  };
}

/** Internal header by which the app tells its transport to lose the answer; transports strip it. */
export const LOSS_HEADER = 'x-jobproof-loss';
