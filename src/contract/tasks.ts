import { z } from 'zod';
import { PrincipalSchema } from './principals.js';

/** Task states of tasks-api.md. */
export const TASK_STATES = ['queued', 'running', 'awaiting_review', 'approved', 'applying', 'applied', 'rejected', 'failed', 'apply_failed'] as const;
export const FINAL_TASK_STATES = ['applied', 'rejected', 'failed', 'apply_failed'] as const;
export const TaskStateSchema = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskStateSchema>;

export function isFinalTaskState(s: TaskState): boolean {
  return (FINAL_TASK_STATES as readonly string[]).includes(s);
}

export const ObjectRefSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'object_ref must be 1-128 characters of [A-Za-z0-9_.:-]');

export const CreateTaskBodySchema = z
  .object({
    type: z.literal('propose_update'),
    object_ref: ObjectRefSchema,
    object_version: z.number().int().min(1),
    input: z.record(z.string(), z.unknown()),
  })
  .strict();
export type CreateTaskBody = z.infer<typeof CreateTaskBodySchema>;

export const ReviewBodySchema = z
  .object({
    decision: z.enum(['approve', 'reject', 'revoke']),
    proposal_version: z.number().int().min(1),
    comment: z.string().max(2000).optional(),
  })
  .strict();
export type ReviewBody = z.infer<typeof ReviewBodySchema>;

/** `POST /v1/tasks/{id}/apply` takes no fields; an empty body or `{}` is accepted. */
export const ApplyBodySchema = z.object({}).strict();

/** Task behaviour (control API `PUT /_control/task-behavior`); fields left out take these defaults. */
export const TaskBehaviorSchema = z
  .object({
    draft_ms: z.number().int().min(0).max(24 * 3600 * 1000).default(500),
    outcome: z.enum(['awaiting_review', 'failed']).default('awaiting_review'),
    apply: z.enum(['ok', 'fail']).default('ok'),
  })
  .strict();
export type TaskBehavior = z.output<typeof TaskBehaviorSchema>;
export type TaskBehaviorInput = z.input<typeof TaskBehaviorSchema>;

export const PutObjectBodySchema = z
  .object({ tenant: z.string().min(1).max(100), data: z.record(z.string(), z.unknown()) })
  .strict();

/** `PUT /_control/principals`: tokens to set (a principal) or remove (null); `replace` drops every other token first. */
export const PutPrincipalsBodySchema = z
  .object({
    tokens: z.record(z.string().min(1).max(500), PrincipalSchema.nullable()),
    replace: z.boolean().default(false),
  })
  .strict();

export interface Source {
  ref: string;
  version: number;
  excerpt: string;
}

export interface Draft {
  text: string;
  sources: Source[];
  confidence: number;
}

/** The change a proposal makes: an RFC 7386 JSON merge patch of the object's data. */
export interface Change {
  type: 'merge_patch';
  patch: Record<string, unknown>;
}

export interface Proposal {
  proposal_version: number;
  object_ref: string;
  base_version: number;
  change: Change;
  rationale: string;
  sha256: string;
}

export interface Review {
  decision: 'approved' | 'rejected' | 'revoked';
  reviewer: string;
  proposal_version: number;
  proposal_sha256: string;
  at: string;
}

export interface Application {
  applied_at: string;
  new_version: number;
  idempotency_key: string;
}


export interface TaskView {
  task_id: string;
  type: string;
  state: TaskState;
  object_ref: string;
  object_version: number;
  initiator: string;
  created_at: string;
  updated_at: string;
  result: { draft: Draft; proposal: Proposal } | null;
  review: Review | null;
  application: Application | null;
  error: { code: string; message: string } | null;
}

/** One audit event; `seq` orders them per task. Never holds a token. */
export type AuditEvent = { seq: number; at: string; type: string; actor: string } & Record<string, unknown>;
