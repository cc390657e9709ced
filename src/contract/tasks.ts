import { z } from 'zod';
import { PrincipalSchema } from './principals.js';

/** Task states of tasks-api.md. */
export const TASK_STATES = [
  'queued',
  'running',
  'awaiting_review',
  'approved',
  'applying',
  'applied',
  'rejected',
  'failed',
  'apply_failed',
] as const;
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
    draft_ms: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600 * 1000)
      .default(500),
    outcome: z.enum(['awaiting_review', 'failed']).default('awaiting_review'),
    apply: z.enum(['ok', 'fail']).default('ok'),
  })
  .strict();
export type TaskBehavior = z.output<typeof TaskBehaviorSchema>;
export type TaskBehaviorInput = z.input<typeof TaskBehaviorSchema>;

export const PutObjectBodySchema = z.object({ tenant: z.string().min(1).max(100), data: z.record(z.string(), z.unknown()) }).strict();

/** `PUT /_control/principals`: tokens to set (a principal) or remove (null); `replace` drops every other token first. */
export const PutPrincipalsBodySchema = z
  .object({
    tokens: z.record(z.string().min(1).max(500), PrincipalSchema.nullable()),
    replace: z.boolean().default(false),
  })
  .strict();

export const SourceSchema = z.object({ ref: z.string(), version: z.number().int(), excerpt: z.string() });
export type Source = z.infer<typeof SourceSchema>;

export const DraftSchema = z.object({ text: z.string(), sources: z.array(SourceSchema), confidence: z.number() });
export type Draft = z.infer<typeof DraftSchema>;

/** The change a proposal makes: an RFC 7386 JSON merge patch of the object's data. */
export const ChangeSchema = z.object({ type: z.literal('merge_patch'), patch: z.record(z.string(), z.unknown()) });
export type Change = z.infer<typeof ChangeSchema>;

export const ProposalSchema = z.object({
  proposal_version: z.number().int(),
  object_ref: z.string(),
  base_version: z.number().int(),
  change: ChangeSchema,
  rationale: z.string(),
  sha256: z.string(),
});
export type Proposal = z.infer<typeof ProposalSchema>;

export const ReviewSchema = z.object({
  decision: z.enum(['approved', 'rejected', 'revoked']),
  reviewer: z.string(),
  proposal_version: z.number().int(),
  proposal_sha256: z.string(),
  at: z.string(),
});
export type Review = z.infer<typeof ReviewSchema>;

export const ApplicationSchema = z.object({ applied_at: z.string(), new_version: z.number().int(), idempotency_key: z.string() });
export type Application = z.infer<typeof ApplicationSchema>;

/** The public Task object of tasks-api.md. */
export const TaskViewSchema = z.object({
  task_id: z.string(),
  type: z.string(),
  state: TaskStateSchema,
  object_ref: z.string(),
  object_version: z.number().int(),
  initiator: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  result: z.object({ draft: DraftSchema, proposal: ProposalSchema }).nullable(),
  review: ReviewSchema.nullable(),
  application: ApplicationSchema.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type TaskView = z.infer<typeof TaskViewSchema>;

/** One audit event; `seq` orders them per task. Never holds a token. */
export const AuditEventSchema = z.looseObject({ seq: z.number().int(), at: z.string(), type: z.string(), actor: z.string() });
export type AuditEvent = { seq: number; at: string; type: string; actor: string } & Record<string, unknown>;

/** `GET /v1/tasks/{task_id}/audit`. */
export const TaskAuditSchema = z.object({ task_id: z.string(), events: z.array(AuditEventSchema) });

/** `GET /v1/objects/{object_ref}`: the object a task proposes to change, at its current version. */
export const ObjectViewSchema = z.object({
  object_ref: z.string(),
  version: z.number().int(),
  data: z.record(z.string(), z.unknown()),
  updated_at: z.string(),
});
