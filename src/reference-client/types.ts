import { z } from 'zod';
import { OperationStateSchema } from '../contract/client-protocol.js';
import { JobStateSchema } from '../contract/jobs.js';

/**
 * The reference client's durable record. Times are epoch milliseconds (of the injected clock); they are turned into
 * RFC 3339 only at the edges (`show`, history), so comparisons never parse strings.
 */
export const CancelIntentSchema = z.object({
  actor: z.string(),
  reason: z.string(),
  cancel_deadline_ms: z.number().int(),
  requested_at: z.number(),
  deadline_at: z.number(),
});
export type CancelIntent = z.infer<typeof CancelIntentSchema>;

/** What the provider promised about the results when it said `succeeded`; the fetched body is held to it. */
export const ExpectedResultSchema = z.object({
  url: z.string(),
  sha256: z.string(),
  items_total: z.number().int(),
  items_failed: z.number().int(),
});
export type ExpectedResult = z.infer<typeof ExpectedResultSchema>;

/** Outcome of the last cancel attempt; `in_flight` survives a crash and is then treated as ambiguous. */
export const CancelAttemptSchema = z.enum(['in_flight', 'ambiguous', 'refused', 'answered']);

export const OperationRowSchema = z.object({
  operation_id: z.string(),
  state: OperationStateSchema,
  remote_state: JobStateSchema.nullable(),
  kind: z.string(),
  input: z.record(z.string(), z.unknown()),
  request_fingerprint: z.string(),
  idempotency_key: z.string(),
  trace_id: z.string(),
  submitted_at: z.number(),
  create_deadline_at: z.number(),
  result_deadline_at: z.number(),
  cancel: CancelIntentSchema.nullable(),
  remote_job_id: z.string().nullable(),
  /** Fixed at the first create attempt so that every replay sends a byte-identical body (same fingerprint). */
  webhook_url: z.string().nullable(),
  /** A second job id the provider answered for the same key: kept next to the first (needs_attention). */
  conflicting_job_id: z.string().nullable(),
  next_poll_at: z.number().nullable(),
  /** No request for this operation before this time (a Retry-After on 409/429/503). */
  not_before: z.number(),
  /** Backoff exponent: consecutive polls or retries since the last state change. */
  attempt: z.number().int(),
  poll_count: z.number().int(),
  /** Consecutive status reads that taught us nothing; past a deadline, after three, every other read takes the list route. */
  read_failures: z.number().int().optional(),
  create_attempts: z.number().int(),
  last_create_at: z.number().nullable(),
  cancel_sends: z.number().int(),
  cancel_attempt: CancelAttemptSchema.nullable(),
  collect_attempts: z.number().int(),
  expected_result: ExpectedResultSchema.nullable(),
  result_sha256: z.string().nullable(),
  result_location: z.string().nullable(),
  items_total: z.number().int().nullable(),
  items_failed: z.number().int().nullable(),
  remote_progress: z.object({ completed: z.number(), total: z.number() }).nullable(),
  reason: z.string().nullable(),
  lease_owner: z.string().nullable(),
  lease_expires_at: z.number().nullable(),
  fencing_token: z.number().int(),
});
export type OperationRow = z.infer<typeof OperationRowSchema>;

/**
 * Columns no patch writes: identity and request (fixed at submit), the lease (claimDue, renew, release), the cancel
 * intent (recordCancelIntent) and `state`, which moves only by history lines the transition table allows
 * (state-machine.ts `walk`, run by the store inside its commit). The stores refuse these keys at run time too.
 */
export const UNPATCHABLE = [
  'state',
  'operation_id',
  'kind',
  'input',
  'request_fingerprint',
  'idempotency_key',
  'trace_id',
  'submitted_at',
  'lease_owner',
  'lease_expires_at',
  'fencing_token',
  'cancel',
] as const satisfies readonly (keyof OperationRow)[];

/** Fields a worker may change under its lease. */
export type OperationPatch = Partial<Omit<OperationRow, (typeof UNPATCHABLE)[number]>>;

/** The request/response summary a history entry carries: enough to find the call in the provider's journal. */
export const EvidenceSummarySchema = z.object({
  kind: z.string(),
  status: z.number().int().nullable().optional(),
  request_id: z.string().nullable().optional(),
  job_state: z.string().nullable().optional(),
  job_id: z.string().nullable().optional(),
  other_job_id: z.string().nullable().optional(),
  detail: z.string().nullable().optional(),
});
export type EvidenceSummary = z.infer<typeof EvidenceSummarySchema>;

export const StoredHistoryEntrySchema = z.object({
  at: z.string(),
  actor: z.string(),
  from: OperationStateSchema.nullable(),
  to: OperationStateSchema,
  cause: z.string(),
  evidence: EvidenceSummarySchema,
  remote_state: JobStateSchema.nullable(),
  /** The fencing token the entry was written under (client-protocol.md "Lease tokens"); null for submit. Optional
   * only for stores written before lease tokens (a missing one reads as null). */
  lease_token: z.number().int().nullable().optional(),
});
export type StoredHistoryEntry = z.infer<typeof StoredHistoryEntrySchema>;

/** One audit line before it is chained. `detail` must never hold a token or secret. */
export interface AuditInput {
  at: number;
  actor: string;
  kind: 'intent' | 'call' | 'transition' | 'lease' | 'stale_answer' | 'webhook';
  operation_id: string | null;
  detail: Record<string, unknown>;
}

export interface AuditRow {
  seq: number;
  at: string;
  actor: string;
  kind: string;
  operation_id: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}
