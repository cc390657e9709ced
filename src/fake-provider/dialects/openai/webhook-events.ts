import type { ProviderCore } from '../../core.js';
import type { EventShaper } from '../../webhooks/dispatcher.js';
import { unixSeconds } from '../lines.js';

const EVENT_OF: Record<string, string> = {
  'job.succeeded': 'batch.completed',
  'job.failed': 'batch.failed',
  'job.cancelled': 'batch.cancelled',
  'job.expired': 'batch.expired',
};

/**
 * OpenAI's batch events are thin: only the final ones, carrying the batch id and nothing else (the receiver must read
 * the batch). Signed like every delivery (Standard Webhooks); a redelivery keeps the event id, so `webhook-id`.
 */
export const openaiWebhookShaper: EventShaper = (jobId, jobEvent, eventId, at) => {
  const type = EVENT_OF[jobEvent];
  if (!type) return null;
  return { type, payload: JSON.stringify({ id: eventId, object: 'event', type, created_at: unixSeconds(at), data: { id: jobId } }) };
};

const SETTING = 'openai_webhook_urls';

/**
 * Real OpenAI sends a project's events to the endpoints set up in its dashboard; here each tenant has at most one
 * endpoint, set by the control API (`PUT /_control/dialects/openai/webhook`) or `createProvider({openaiWebhooks})`.
 */
export function openaiWebhookUrls(core: ProviderCore): Record<string, string> {
  return core.settings.get<Record<string, string>>(SETTING) ?? {};
}

export function setOpenaiWebhookUrl(core: ProviderCore, tenant: string, url: string | null): Record<string, string> {
  const urls = { ...openaiWebhookUrls(core) };
  if (url === null) delete urls[tenant];
  else urls[tenant] = url;
  core.settings.put(SETTING, urls);
  return urls;
}
