import { z } from 'zod';

/** States of one task operation in the client's own store. Open: create_pending, waiting, applying. */
export const TASK_OP_STATES = [
  'create_pending',
  'waiting',
  'applying',
  'applied',
  'rejected',
  'failed',
  'apply_failed',
  'needs_attention',
] as const;
export type TaskOpState = (typeof TASK_OP_STATES)[number];
export const FINAL_TASK_OP_STATES: readonly TaskOpState[] = ['applied', 'rejected', 'failed', 'apply_failed', 'needs_attention'];
export function isFinalTaskOp(s: TaskOpState): boolean {
  return FINAL_TASK_OP_STATES.includes(s);
}

export const SubmitTaskInputSchema = z
  .object({
    task_op_id: z.string().min(1).max(200),
    type: z.literal('propose_update').default('propose_update'),
    object_ref: z.string().min(1).max(128),
    object_version: z.number().int().min(1),
    input: z.record(z.string(), z.unknown()),
    /** How long the whole operation may take (create, drafting, review, apply) before it needs a person. */
    deadline_ms: z
      .number()
      .int()
      .min(1)
      .default(30 * 60_000),
  })
  .strict();
export type SubmitTaskInput = z.input<typeof SubmitTaskInputSchema>;

/** The approval the client relied on when it decided to apply, as it saw it. */
export interface ReliedApproval {
  decision: string;
  reviewer: string;
  proposal_version: number;
  proposal_sha256: string;
}

export interface TaskApplication {
  applied_at: string;
  new_version: number;
  idempotency_key: string;
}

export interface TaskOpRow {
  task_op_id: string;
  state: TaskOpState;
  type: 'propose_update';
  object_ref: string;
  object_version: number;
  input: Record<string, unknown>;
  /** Create key: ≥ 128 random bits, recorded before the first send, the same on every create retry. */
  create_key: string;
  /** Apply key: generated once, stored before the first apply, kept across every retry; never the create key. */
  apply_key: string | null;
  trace_id: string;
  task_id: string | null;
  initiator: string | null;
  /** Last proposal version seen, and the approval relied on for the current apply. */
  proposal_version: number | null;
  approval: ReliedApproval | null;
  application: TaskApplication | null;
  reason: string | null;
  create_attempts: number;
  apply_attempts: number;
  read_failures: number;
  submitted_at: number;
  deadline_at: number;
  updated_at: number;
  /** The worker stepping it (lease.ts); absent on rows written before leases (read as no lease, token 0). */
  lease_owner?: string | null;
  lease_expires_at?: number | null;
  fencing_token?: number;
}

/**
 * Columns no patch writes: what the submitter gave (and its create key), and `state`, which moves only by history
 * lines the transition table allows (state-machine.ts). The stores refuse these keys at run time too.
 */
export const TASK_UNPATCHABLE = [
  'state',
  'task_op_id',
  'type',
  'object_ref',
  'object_version',
  'input',
  'create_key',
  'trace_id',
  'submitted_at',
  'deadline_at',
  'lease_owner',
  'lease_expires_at',
  'fencing_token',
] as const satisfies readonly (keyof TaskOpRow)[];
export type TaskPatch = Partial<Omit<TaskOpRow, (typeof TASK_UNPATCHABLE)[number]>>;
/** A task record before it is stored: the store gives it the submit line's state. */
export type NewTaskOpRow = Omit<TaskOpRow, 'state'>;

/** A history line before it is stored: the store fills `from` (and `seq`) inside its transaction. */
export type HistoryInput = { at: string; to: TaskOpState; cause: string; evidence?: Record<string, unknown> };

export interface TaskHistoryEntry {
  task_op_id: string;
  seq: number;
  at: string;
  from: TaskOpState | null;
  to: TaskOpState;
  cause: string;
  evidence: Record<string, unknown>;
}

/** What the client reports for a finished (or abandoned) operation. */
export interface TaskReport {
  task_op_id: string;
  state: TaskOpState;
  task_id: string | null;
  application: TaskApplication | null;
  apply_key: string | null;
  reason: string | null;
}
