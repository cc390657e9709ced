import { z } from 'zod';

export const JOB_STATES = ['queued', 'running', 'cancelling', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export const TERMINAL_JOB_STATES = ['succeeded', 'failed', 'cancelled', 'expired'] as const;
export const JobStateSchema = z.enum(JOB_STATES);
export type JobState = z.infer<typeof JobStateSchema>;

export function isTerminal(state: JobState): boolean {
  return (TERMINAL_JOB_STATES as readonly string[]).includes(state);
}

export const CreateJobBodySchema = z
  .object({
    kind: z.string().regex(/^[a-z0-9_.-]{1,64}$/, 'kind must be 1-64 characters of [a-z0-9_.-]'),
    input: z.record(z.string(), z.unknown()),
    client_ref: z.string().min(1).max(200).optional(),
    webhook_url: z
      .url({ protocol: /^https?$/, message: 'webhook_url must be an http(s) URL' })
      .max(2000)
      .optional(),
  })
  .strict();
export type CreateJobBody = z.infer<typeof CreateJobBodySchema>;

export const CancelBodySchema = z.object({ reason: z.string().max(1000).optional() }).strict();

export const JobResultSchema = z.object({
  url: z.string(),
  sha256: z.string(),
  content_type: z.literal('application/x-ndjson'),
  size: z.number().int(),
  items_total: z.number().int(),
  items_failed: z.number().int(),
});
export type JobResult = z.infer<typeof JobResultSchema>;

/** The public Job object of provider-api.md, exactly these fields. */
export const JobSchema = z.object({
  job_id: z.string(),
  kind: z.string(),
  state: JobStateSchema,
  client_ref: z.string().nullable(),
  trace_id: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  progress: z.object({ completed: z.number().int(), total: z.number().int() }),
  cancel_requested_at: z.string().nullable(),
  result: JobResultSchema.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type Job = z.infer<typeof JobSchema>;

export const CreateAcceptedSchema = z.object({
  job_id: z.string(),
  state: z.literal('queued'),
  status_url: z.string(),
  created_at: z.string(),
});
export type CreateAccepted = z.infer<typeof CreateAcceptedSchema>;

export const ResultItemSchema = z.discriminatedUnion('status', [
  z.object({ item_id: z.string(), status: z.literal('succeeded'), output: z.record(z.string(), z.unknown()) }).strict(),
  z
    .object({
      item_id: z.string(),
      status: z.literal('failed'),
      error: z.object({ code: z.string(), message: z.string() }),
    })
    .strict(),
]);
export type ResultItem = z.infer<typeof ResultItemSchema>;

/** `GET /v1/jobs?…`: find by client_ref or idempotency_key, newest first, paged by `next_cursor`. */
export const FindJobsQuerySchema = z.object({
  client_ref: z.string().min(1).max(200).optional(),
  idempotency_key: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .regex(/^c[0-9]+$/, 'cursor must be a value returned as next_cursor')
    .optional(),
});

export const JobListSchema = z.object({ data: z.array(JobSchema), next_cursor: z.string().nullable() });
export type JobList = z.infer<typeof JobListSchema>;
