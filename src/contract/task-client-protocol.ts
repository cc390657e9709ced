import { z } from 'zod';

/**
 * The task verbs of client-protocol.md as data: what `CMD task submit` reads, what `CMD task show` prints, and the
 * in-process face. The conformance judge parses client evidence with these schemas only; no client's own types.
 */
export const TASK_OP_WORKING_STATES = ['create_pending', 'waiting', 'applying'] as const;
export const TASK_OP_FINAL_STATES = ['applied', 'rejected', 'failed', 'apply_failed', 'needs_attention'] as const;
export const TaskOpStateSchema = z.enum([...TASK_OP_WORKING_STATES, ...TASK_OP_FINAL_STATES]);
export type TaskOpStateName = z.infer<typeof TaskOpStateSchema>;

export function isFinalTaskOpState(s: TaskOpStateName): boolean {
  return (TASK_OP_FINAL_STATES as readonly string[]).includes(s);
}

/** stdin of `CMD task submit`. */
export const TaskSubmitSchema = z
  .object({
    task_op_id: z.string().min(1).max(200),
    object_ref: z.string().min(1).max(128),
    object_version: z.number().int().min(1),
    input: z.record(z.string(), z.unknown()),
    /** How long the whole operation may take (create, drafting, review, apply) before it needs a person. */
    deadline_ms: z.number().int().positive(),
  })
  .strict();
export type TaskSubmit = z.infer<typeof TaskSubmitSchema>;

/** The approval a client relied on when it decided to apply, as the task showed it then. */
export const ReliedApprovalRecordSchema = z
  .object({ decision: z.string(), reviewer: z.string(), proposal_version: z.number().int(), proposal_sha256: z.string() })
  .passthrough();

/** The proposal that was current when the client decided to apply (what the approval is held against). */
export const CurrentProposalSchema = z
  .object({ proposal_version: z.number().int().nullable(), sha256: z.string().nullable(), initiator: z.string().nullable() })
  .passthrough();

export const TaskHistoryRecordSchema = z
  .object({
    at: z.string(),
    actor: z.string(),
    from: TaskOpStateSchema.nullable(),
    to: TaskOpStateSchema,
    cause: z.string(),
    /** The proposal version the client saw, on entries written after it read a proposal. */
    proposal_version: z.number().int().nullable().optional(),
    /** On every entry into `applying`: the approval relied on, and the proposal current then. */
    approval: ReliedApprovalRecordSchema.nullable().optional(),
    current: CurrentProposalSchema.nullable().optional(),
    apply_key: z.string().nullable().optional(),
  })
  .passthrough();
export type TaskHistoryRecord = z.infer<typeof TaskHistoryRecordSchema>;

export const TaskApplicationSchema = z
  .object({ applied_at: z.string(), new_version: z.number().int(), idempotency_key: z.string() })
  .passthrough();

/** What `CMD task show TASK_OP_ID` prints. Extra fields are allowed. */
export const TaskRecordSchema = z
  .object({
    task_op_id: z.string(),
    state: TaskOpStateSchema,
    task_id: z.string().nullable(),
    object_ref: z.string(),
    object_version: z.number().int(),
    /** The create's Idempotency-Key, recorded before the first send and the same on every retry. */
    create_key: z.string().min(1),
    /** The apply's Idempotency-Key: recorded before the first apply, kept across every retry; null before. */
    apply_key: z.string().nullable(),
    trace_id: z.string(),
    application: TaskApplicationSchema.nullable(),
    reason: z.string().nullable(),
    history: z.array(TaskHistoryRecordSchema).min(1),
  })
  .passthrough();
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

/** The in-process face of the task verbs (TypeScript clients): `submit`, `work`, `show`. */
export interface InProcessTaskClient {
  submitTask(op: TaskSubmit): unknown;
  /** Drive every recorded operation to a final state, or until `signal` aborts. */
  work(opts: { signal: AbortSignal }): Promise<void>;
  /** May answer a Promise (a store behind a network, such as PostgreSQL). */
  show(taskOpId: string): TaskRecord | Promise<TaskRecord>;
  close(): void | Promise<void>;
}

export interface InProcessTaskClientOptions {
  fetch: typeof fetch;
  clock: import('../lib/clock.js').Clock;
  providerUrl: string;
  token: string;
  state: string;
}
export type InProcessTaskClientFactory = (env: InProcessTaskClientOptions) => InProcessTaskClient;
