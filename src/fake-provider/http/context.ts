import type { Context } from 'hono';
import type { FiredRule } from '../faults/decide.js';
import type { Effect, FiredFault } from '../../contract/journal.js';
import type { JobState } from '../../contract/jobs.js';
import type { Principal } from '../../contract/principals.js';
import type { Dialect, Mount } from './mount.js';

/** What a handler learns about its request, written to the journal once the answer is known. */
export interface JournalDraft {
  route: string | null;
  dialect: Dialect;
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
  /** Dialects: the file an OpenAI Files request created or read, or a create named as its input. */
  file_id?: string;
  /** Dialects: SHA-256 (hex) of the results body a `results_served` answer handed out (OpenAI: of that file). */
  served_sha256?: string;
}

/** Read with `c.get(name)`, never `c.var.name`: Hono builds `c.var` afresh from its map on every access. */
export type Vars = {
  requestId: string;
  receivedAt: number;
  traceId: string | null;
  workerId: string | null;
  draft: JournalDraft;
  /** The ids every answer carries (X-Request-ID, X-Trace-ID, a dialect's request-id header): http/answer.ts. */
  stamp: Record<string, string>;
  /** Dialect, error shape and credentials of the routes serving this request (native unless a mount says else). */
  mount: Mount;
  // Set by the fault seam (http/seam/) for the route handler it wraps; unset outside a seam-wrapped route.
  principal: Principal;
  /** What the route's `describe` hook returned; read it typed with `described(c, describeX)`. */
  input: unknown;
  /** The fault rule fired for this request, or null; the seam enacts it. */
  fault: FiredRule | null;
  /** On `hold: true` routes: an injected `delay` happens here (call it right after reserving the key). */
  hold: () => Promise<void>;
};

export type Env = { Variables: Vars };
export type Ctx = Context<Env>;

export function newDraft(): JournalDraft {
  return {
    route: null,
    dialect: 'native',
    principal: null,
    idempotency_key: null,
    fingerprint: null,
    effect: 'none',
    job_id: null,
    job_state: null,
    client_ref: null,
    task_id: null,
    task_state: null,
    code: null,
    fault: null,
    delivery: 'delivered',
    loss: null,
  };
}

/** Internal header by which the app tells its transport to lose the answer; transports strip it. */
export const LOSS_HEADER = 'x-jobproof-loss';
