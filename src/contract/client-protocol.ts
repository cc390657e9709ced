import { z } from 'zod';

/**
 * The client protocol of client-protocol.md as data: the operation states, the record `show` prints, the stdin of
 * `submit` and `cancel`, and the protocol-level state machine the judge (I15) holds every history to.
 * The reference client's own transition table (with evidence) must be a subset of ALLOWED_TRANSITIONS.
 */
export const WORKING_STATES = [
  'create_pending',
  'create_unknown',
  'reconciliation',
  'accepted',
  'observing',
  'cancel_requested',
  'cancelling',
  'result_collecting',
] as const;
export const FINAL_STATES = [
  'succeeded',
  'failed',
  'cancelled',
  'cancellation_unconfirmed',
  'result_timed_out',
  'result_unavailable',
  'result_validation_failed',
  'needs_attention',
] as const;
export const OperationStateSchema = z.enum([...WORKING_STATES, ...FINAL_STATES]);
export type OperationState = z.infer<typeof OperationStateSchema>;
export type WorkingState = (typeof WORKING_STATES)[number];
export type FinalState = (typeof FINAL_STATES)[number];

export function isFinalState(s: OperationState): s is FinalState {
  return (FINAL_STATES as readonly string[]).includes(s);
}

const W = <T extends OperationState[]>(...s: T) => s;
/** from → the states it may move to. Final states have no way out. `null` is the state before `submit`. */
export const ALLOWED_TRANSITIONS: Record<OperationState | 'null', readonly OperationState[]> = {
  null: W('create_pending'),
  create_pending: W('accepted', 'result_collecting', 'create_unknown', 'failed', 'cancelled', 'needs_attention', 'observing'),
  create_unknown: W(
    'reconciliation',
    'create_pending',
    'accepted',
    'observing',
    'result_collecting',
    'failed',
    'cancel_requested',
    'needs_attention',
  ),
  reconciliation: W(
    'accepted',
    'observing',
    'result_collecting',
    'create_pending',
    'create_unknown',
    'cancel_requested',
    'failed',
    'cancelled',
    'needs_attention',
  ),
  accepted: W('observing', 'cancel_requested', 'result_collecting', 'failed', 'cancelled', 'result_timed_out', 'needs_attention'),
  observing: W('cancel_requested', 'result_collecting', 'failed', 'cancelled', 'result_timed_out', 'needs_attention'),
  cancel_requested: W('cancelling', 'result_collecting', 'failed', 'cancelled', 'cancellation_unconfirmed', 'needs_attention'),
  cancelling: W('result_collecting', 'failed', 'cancelled', 'cancellation_unconfirmed', 'needs_attention'),
  result_collecting: W('succeeded', 'result_unavailable', 'result_validation_failed', 'result_timed_out', 'needs_attention'),
  succeeded: [],
  failed: [],
  cancelled: [],
  cancellation_unconfirmed: [],
  result_timed_out: [],
  result_unavailable: [],
  result_validation_failed: [],
  needs_attention: [],
};

export function isAllowedTransition(from: OperationState | null, to: OperationState): boolean {
  return ALLOWED_TRANSITIONS[from ?? 'null'].includes(to);
}

export const HistoryEntrySchema = z
  .object({
    at: z.string(),
    actor: z.string(),
    from: OperationStateSchema.nullable(),
    to: OperationStateSchema,
    cause: z.string(),
    /** The fencing token the entry was written under (client-protocol.md "Lease tokens"); null for submit and cancel. */
    lease_token: z.number().int().nullable().optional(),
  })
  .passthrough();
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/** What `CMD show OPERATION_ID` prints. Extra fields are allowed (a client may say more). */
export const OperationRecordSchema = z
  .object({
    operation_id: z.string(),
    state: OperationStateSchema,
    remote_job_id: z.string().nullable().optional(),
    idempotency_key: z.string(),
    request_fingerprint: z.string(),
    trace_id: z.string(),
    result: z
      .object({ sha256: z.string(), items_total: z.number().int(), items_failed: z.number().int() })
      .passthrough()
      .nullable()
      .optional(),
    history: z.array(HistoryEntrySchema),
  })
  .passthrough();
export type OperationRecord = z.infer<typeof OperationRecordSchema>;

export const SubmitInputSchema = z
  .object({
    operation_id: z.string().min(1).max(200),
    kind: z.string().min(1).max(64),
    input: z.record(z.string(), z.unknown()),
    create_deadline_ms: z.number().int().positive(),
    result_deadline_ms: z.number().int().positive(),
  })
  .strict();
export type SubmitInput = z.infer<typeof SubmitInputSchema>;

export const CancelInputSchema = z
  .object({
    actor: z.string().min(1).max(200),
    reason: z.string().max(1000),
    cancel_deadline_ms: z.number().int().positive(),
  })
  .strict();
export type CancelInput = z.infer<typeof CancelInputSchema>;

/** Exit codes of client-protocol.md. */
export const EXIT = { ok: 0, refused: 2, changedRequest: 3 } as const;

/**
 * The in-process face: a TypeScript client implements these four verbs, built by a factory.
 * `state` is an opaque per-client durable location (a directory path for SQLite-backed clients).
 */
export interface InProcessClient {
  submit(op: SubmitInput): Promise<void>;
  cancel(operationId: string, intent: CancelInput): Promise<void>;
  work(opts: { signal: AbortSignal }): Promise<void>;
  show(operationId: string): Promise<OperationRecord>;
  /** For clients given `webhook` options: the in-process harness delivers webhook requests here. */
  handleWebhook?(request: Request): Promise<Response>;
  close?(): Promise<void> | void;
}

export interface InProcessClientOptions {
  fetch: typeof fetch;
  clock: import('../lib/clock.js').Clock;
  providerUrl: string;
  token: string;
  workerId: string;
  leaseMs: number;
  state: string;
  /** Set when the client should use webhooks: where the harness delivers them, and the secret to verify. */
  webhook?: { url: string; secret: string };
}

export type InProcessClientFactory = (opts: InProcessClientOptions) => InProcessClient | Promise<InProcessClient>;

/** Thrown by `submit` for the same operation id with a different request (exit 3 in the process form). */
export class ChangedRequestError extends Error {
  readonly code = 'changed_request';
}
/** Thrown by `cancel`/`show` for an unknown operation id (exit 2 in the process form). */
export class UnknownOperationError extends Error {
  readonly code = 'unknown_operation';
}
