import type { Application, Draft, Proposal, Review, TaskBehavior, TaskState } from '../../contract/tasks.js';

/** The provider's stored task and object rows (tasks-api.md's wire shapes are in src/contract/tasks.ts). */
export interface TaskRow {
  task_id: string;
  tenant: string;
  type: 'propose_update';
  state: TaskState;
  object_ref: string;
  object_version: number;
  input: Record<string, unknown>;
  initiator: string;
  idempotency_key: string;
  trace_id: string | null;
  behavior: TaskBehavior;
  created_at: number;
  updated_at: number;
  /** When the next time-driven step falls due (queued → running → awaiting_review/failed). */
  next_step_at: number | null;
  result: { draft: Draft; proposal: Proposal } | null;
  review: Review | null;
  application: Application | null;
  error: { code: string; message: string } | null;
  /** Why the last approval lapsed, when it did; cleared by a new approval. */
  lapse_reason: 'object_changed' | 'approver_lost_role' | null;
}

export interface ObjectRow {
  tenant: string;
  object_ref: string;
  version: number;
  data: Record<string, unknown>;
  updated_at: number;
}
