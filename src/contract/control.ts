import { z } from 'zod';
import { BehaviorSchema } from './behavior.js';
import { JobSchema } from './jobs.js';
import { JournalEntrySchema } from './journal.js';
import { PrincipalSchema } from './principals.js';
import { TaskBehaviorSchema, TaskViewSchema } from './tasks.js';

/** The control API of provider-api.md (`/_control/…`): for harnesses and people, never for clients under test. */
export const JournalQuerySchema = z.object({
  since: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100_000).default(10_000),
});

export const ClockBodySchema = z
  .object({
    advance_ms: z
      .number()
      .int()
      .min(0)
      .max(365 * 24 * 3600 * 1000),
  })
  .strict();

export const JournalPageSchema = z.object({ data: z.array(JournalEntrySchema), next_since: z.number().int(), has_more: z.boolean() });
export const ClockAnswerSchema = z.object({ now: z.string() });
export const ResetAnswerSchema = z.object({ reset: z.literal(true) });

/** `GET /_control/jobs`: every job with its tenant, submitter and behaviour. */
export const ControlJobsSchema = z.object({
  data: z.array(JobSchema.extend({ tenant: z.string(), subject: z.string(), behavior: BehaviorSchema })),
});

/** `GET /_control/tasks`: every task with its tenant and behaviour. */
export const ControlTasksSchema = z.object({ data: z.array(TaskViewSchema.extend({ tenant: z.string(), behavior: TaskBehaviorSchema })) });

export const PrincipalsAnswerSchema = z.object({ tokens: z.record(z.string(), PrincipalSchema) });

/** `PUT /_control/objects/{object_ref}`: the object as stored, and the tasks it sent back to drafting. */
export const PutObjectAnswerSchema = z.looseObject({
  tenant: z.string(),
  object_ref: z.string(),
  version: z.number().int(),
  data: z.record(z.string(), z.unknown()),
  updated_at: z.string(),
  redrafted_tasks: z.array(z.string()),
});

/** `PUT /_control/scenario`: switch to a named scenario's provider-side behaviour and faults. */
export const ScenarioBodySchema = z.object({ name: z.string() }).strict();

/** `PUT /_control/dialects/openai/webhook`: where the OpenAI dialect sends a tenant's webhooks (null removes it). */
export const OpenaiWebhookBodySchema = z
  .object({
    tenant: z.string().min(1).max(200).default('acme'),
    url: z
      .url({ protocol: /^https?$/, message: 'url must be an http(s) URL' })
      .max(2000)
      .nullable(),
    /** The endpoint's signing secret (each OpenAI endpoint has its own): the tenant's deliveries are signed with it. */
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]+$/, 'secret must be whsec_ and base64')
      .optional(),
  })
  .strict();
export const OpenaiWebhookUrlsSchema = z.object({ urls: z.record(z.string(), z.string()) });

/** What became of one request of a dialect batch (docs/dialects.md). */
export const BatchRequestOutcomeSchema = z.enum(['processing', 'succeeded', 'errored', 'canceled', 'expired']);

/** `GET /_control/dialects/batches`: every dialect batch, its dialect view now, and each request's outcome by `custom_id`. */
export const ControlDialectBatchesSchema = z.object({
  data: z.array(
    z.object({
      batch_id: z.string(),
      dialect: z.enum(['openai', 'anthropic']),
      tenant: z.string(),
      state: JobSchema.shape.state,
      deleted: z.boolean(),
      /** The OpenAI `Batch` or Anthropic `MessageBatch` object, as a client would read it now. */
      view: z.record(z.string(), z.unknown()),
      requests: z.array(z.object({ custom_id: z.string(), outcome: BatchRequestOutcomeSchema })),
    }),
  ),
});
