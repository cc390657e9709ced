import { z } from 'zod';
import { FINAL_STATES, WORKING_STATES } from './client-states.js';

/**
 * The client protocol of client-protocol.md as data: the operation states, the record `show` prints, the stdin of
 * `submit` and `cancel`, and the protocol-level state machine the judge (I15) holds every history to.
 * The reference client's own transition table (with evidence) must be a subset of ALLOWED_TRANSITIONS.
 */
export {
  ALLOWED_TRANSITIONS,
  ChangedRequestError,
  EXIT,
  FINAL_STATES,
  isAllowedTransition,
  isFinalState,
  UnknownOperationError,
  WORKING_STATES,
  type FinalState,
  type WorkingState,
} from './client-states.js';

export const OperationStateSchema = z.enum([...WORKING_STATES, ...FINAL_STATES]);
export type OperationState = z.infer<typeof OperationStateSchema>;

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
    /** Null where the API takes no key (the OpenAI and Anthropic dialects, a profile without one). */
    idempotency_key: z.string().nullable(),
    request_fingerprint: z.string(),
    /** Null for a client that sends no trace id: the judge reports the missing trace id (I14), not a missing record. */
    trace_id: z.string().nullable(),
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
