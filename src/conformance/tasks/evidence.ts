import { z } from 'zod';
import type { RequestEntry } from '../../contract/journal.js';

/**
 * The judge reads a task client's records with its own schema: only the fields the task invariants look at, every
 * other field passed through, so any client that keeps these fields can be judged, not only the reference client.
 */
export const ReliedApprovalSchema = z.looseObject({
  decision: z.string(),
  reviewer: z.string(),
  proposal_version: z.number().int(),
  proposal_sha256: z.string(),
});
export type ReliedApproval = z.infer<typeof ReliedApprovalSchema>;

const TaskApplicationSchema = z.looseObject({ applied_at: z.string(), new_version: z.number().int(), idempotency_key: z.string() });

export const ClientTaskOpSchema = z.object({
  row: z.looseObject({
    task_op_id: z.string(),
    state: z.string(),
    task_id: z.string().nullable(),
    create_key: z.string(),
    apply_key: z.string().nullable(),
    application: TaskApplicationSchema.nullable(),
  }),
  history: z.array(z.looseObject({ seq: z.number().int(), to: z.string(), cause: z.string(), evidence: z.record(z.string(), z.unknown()) })),
});
export type ClientTaskOp = z.infer<typeof ClientTaskOpSchema>;
export const ClientTaskOpsSchema = z.array(ClientTaskOpSchema);

/** What a task client reports for one operation when `runTask` returns. */
export const TaskOpReportSchema = z.looseObject({
  task_op_id: z.string(),
  state: z.string(),
  task_id: z.string().nullable(),
  reason: z.string().nullable().optional(),
  apply_key: z.string().nullable().optional(),
  application: TaskApplicationSchema.nullable().optional(),
});
export type TaskOpReport = z.infer<typeof TaskOpReportSchema>;

/** The face a task client under test offers the runner (the reference client's `TaskClient` has it). */
export interface TaskClientUnderTest {
  submitTask(input: { task_op_id: string; object_ref: string; object_version: number; input: Record<string, unknown>; deadline_ms?: number }): unknown;
  runTask(taskOpId: string, signal?: AbortSignal): Promise<unknown>;
  /** May answer a Promise (a store behind a network, such as PostgreSQL). */
  records(): unknown;
  close(): void | Promise<void>;
}

/** One thing the harness did during a run, placed in the journal's order by the last journal seq before it. */
export interface HarnessEvent {
  /** The journal's last seq when the step ran: the step happened after every entry up to it. */
  after_seq: number;
  at: string;
  kind: 'put_object' | 'review' | 'set_principals';
  object_ref?: string;
  tenant?: string;
  task_id?: string;
  decision?: string;
  status?: number;
  detail?: Record<string, unknown>;
}

export interface ProviderTask {
  task_id: string;
  tenant: string;
  state: string;
  object_ref: string;
  initiator: string;
  result: { proposal: { proposal_version: number; sha256: string; base_version: number } } | null;
  review: { decision: string; reviewer: string; proposal_version: number; proposal_sha256: string } | null;
  application: { applied_at: string; new_version: number; idempotency_key: string } | null;
}

/** Everything `checkTasks` judges: the provider's journal and final state, the client's records, the harness's steps. */
export interface TaskEvidence {
  /** Request entries of the provider journal (others are ignored). */
  journal: RequestEntry[];
  /** The client under test: its principal, and its task records with their history. */
  client: { tenant: string; subject: string; ops: ClientTaskOp[] };
  provider: {
    tasks: ProviderTask[];
    objects: Array<{ tenant: string; object_ref: string; version: number }>;
  };
  harness: HarnessEvent[];
}
