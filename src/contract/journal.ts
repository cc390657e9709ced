import { z } from 'zod';
import { DIALECT_NAMES } from './dialects.js';
import { FaultTypeSchema } from './faults.js';
import { JobStateSchema } from './jobs.js';

/**
 * The journal: ground truth of what happened at the provider. The conformance checker judges clients against it,
 * so every field a verdict may rest on is here, flat and typed.
 */
export const EFFECTS = [
  'created', // a job was created by this request
  'replayed', // an idempotent replay of a stored answer
  'foreign_replay', // a replay answered with a job id that the key never created (injected contract violation)
  'read', // a job or list was read
  'cancel_requested', // a cancel moved a job to cancelling
  'cancel_repeated', // a cancel on a job already cancelling: nothing new scheduled
  'results_served', // a results body was handed out
  'applied', // a task change was applied (tasks API)
  'reviewed', // a review decision was recorded (tasks API)
  'none', // refused or without effect
] as const;
export const EffectSchema = z.enum(EFFECTS);
export type Effect = z.infer<typeof EffectSchema>;

/**
 * Whether the client got the answer: `lost` by a `lose_response` fault, or because the client had hung up (its
 * request aborted) before a held answer was written; `delayed` when a `delay` fault held it and the client was
 * still waiting.
 */
export const DeliverySchema = z.enum(['delivered', 'lost', 'delayed']);
export type Delivery = z.infer<typeof DeliverySchema>;

/**
 * How a `lost` answer was lost, which is when the client could know it: `reset` at once (the connection broke),
 * `hang` only when its own timeout ended (an answer that never came, or a held one it hung up on). The judge reads
 * this, never the fault that caused it.
 */
export const LostBySchema = z.enum(['reset', 'hang']);
export type LostBy = z.infer<typeof LostBySchema>;

/** The rule that fired, for the dashboard and the certificate; `mode` for `lose_response`. */
export const FiredFaultSchema = z.object({ rule_id: z.string(), type: FaultTypeSchema, mode: LostBySchema.optional() });
export type FiredFault = z.infer<typeof FiredFaultSchema>;

/** The wire API a request was made in (dialects.md): the native API or a real provider's. */
export const DialectSchema = z.enum(DIALECT_NAMES);
export type Dialect = z.infer<typeof DialectSchema>;

/** A profile's name (profiles.md): lower-case letters, digits and `-`. */
export const PROFILE_NAME = /^[a-z][a-z0-9-]{1,40}$/;
/** The wire API a journalled request came in: a built-in dialect, or a profile (whose name the journal records). */
export const WireApiSchema = z.union([DialectSchema, z.string().regex(PROFILE_NAME)]);
export type WireApi = z.infer<typeof WireApiSchema>;

export const RequestEntrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  type: z.literal('request'),
  /** When the request arrived; `at` is when it was answered (they differ under a `delay` fault). */
  received_at: z.string(),
  request_id: z.string(),
  method: z.string(),
  path: z.string(),
  route: z.string().nullable(),
  tenant: z.string().nullable(),
  subject: z.string().nullable(),
  idempotency_key: z.string().nullable(),
  trace_id: z.string().nullable(),
  worker_id: z.string().nullable(),
  /** `X-Lease-Token`: the fencing token the worker held for the operation (client-protocol.md), when it sent one. */
  lease_token: z.number().int().nullable().optional(),
  fingerprint: z.string().nullable(),
  effect: EffectSchema,
  job_id: z.string().nullable(),
  status: z.number().int(),
  /** The problem `code` of an error answer. */
  code: z.string().nullable(),
  delivery: DeliverySchema,
  /** When `delivery` is `lost`: how, so when the client could know (absent on journals written before it). */
  lost_by: LostBySchema.optional(),
  fault: FiredFaultSchema.nullable(),
  /** Job state in the answer, when the answer carried a job. */
  job_state: JobStateSchema.nullable(),
  /** `Retry-After` of the answer, in seconds, when it carried one. */
  retry_after: z.number().nullable(),
  /** `client_ref` of a create body. */
  client_ref: z.string().nullable(),
  /** For a find (`GET /v1/jobs?…`): the jobs the answer listed, with their states, so a list read counts as a read. */
  listed: z.array(z.object({ job_id: z.string(), state: JobStateSchema })).optional(),
  /** Tasks API (tasks-api.md): the task a request was about, and its state in the answer; absent on job requests. */
  task_id: z.string().nullable().optional(),
  task_state: z.string().nullable().optional(),
  /** dialects.md: the wire API a request came in (`openai`, `anthropic`, a profile's name); absent on native requests. */
  dialect: WireApiSchema.optional(),
  /** Dialects: the `custom_id`s of the batch a create (or an OpenAI upload) carried, in input order. */
  custom_ids: z.array(z.string()).optional(),
  /** Dialects: the file an OpenAI Files request created or read, or a create named as its input. */
  file_id: z.string().optional(),
  /** Dialects: SHA-256 (hex) of the results body handed out by a `results_served` answer (OpenAI: of that file). */
  served_sha256: z.string().optional(),
});

export const TransitionEntrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  type: z.literal('transition'),
  job_id: z.string(),
  tenant: z.string(),
  from: JobStateSchema.nullable(),
  to: JobStateSchema,
  cause: z.string(),
});

export const WebhookEntrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  type: z.literal('webhook'),
  event_id: z.string(),
  event_type: z.string(),
  job_id: z.string(),
  url: z.string(),
  attempt: z.number().int(),
  /** delivered: 2xx; failed: other status or network error (retried while attempts remain); dropped: a fault. */
  outcome: z.enum(['delivered', 'failed', 'dropped']),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  fault: FiredFaultSchema.nullable(),
  /**
   * A delivery the provider never made (a `forge` fault): sent without a signature, or signed with a wrong secret.
   * Nothing it claims was said by the provider; `outcome` is whether the client accepted it (2xx).
   */
  forged: z.enum(['unsigned', 'wrong_secret']).optional(),
});

export const JournalEntrySchema = z.discriminatedUnion('type', [RequestEntrySchema, TransitionEntrySchema, WebhookEntrySchema]);
export type RequestEntry = z.infer<typeof RequestEntrySchema>;
export type TransitionEntry = z.infer<typeof TransitionEntrySchema>;
export type WebhookEntry = z.infer<typeof WebhookEntrySchema>;
export type JournalEntry = z.infer<typeof JournalEntrySchema>;
