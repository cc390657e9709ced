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

export const ClockBodySchema = z.object({ advance_ms: z.number().int().min(0).max(365 * 24 * 3600 * 1000) }).strict();

export const JournalPageSchema = z.object({ data: z.array(JournalEntrySchema), next_since: z.number().int(), has_more: z.boolean() });
export const ClockAnswerSchema = z.object({ now: z.string() });
export const ResetAnswerSchema = z.object({ reset: z.literal(true) });

/** `GET /_control/jobs`: every job with its tenant, submitter and behaviour. */
export const ControlJobsSchema = z.object({ data: z.array(JobSchema.extend({ tenant: z.string(), subject: z.string(), behavior: BehaviorSchema })) });

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
