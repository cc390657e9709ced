import { z } from 'zod';
import { JobSchema } from './jobs.js';

/** Webhook events of provider-api.md: what a receiver is sent (signed per Standard Webhooks). */
export const WEBHOOK_EVENT_TYPES = [
  'job.running',
  'job.progress',
  'job.cancelling',
  'job.succeeded',
  'job.failed',
  'job.cancelled',
  'job.expired',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WebhookEventSchema = z.object({
  id: z.string(),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  created_at: z.string(),
  data: JobSchema,
});
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;
