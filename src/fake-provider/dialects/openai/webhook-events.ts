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
const SECRETS = 'openai_webhook_secrets';

/**
 * Real OpenAI sends a project's events to the endpoints set up in its dashboard, each with its own signing secret;
 * here each tenant (a project) has at most one endpoint, set by the control API (`PUT /_control/dialects/openai/webhook
 * {tenant, url, secret?}`) or `createProvider({openaiWebhooks})`. A harness gives each run its own tenant (its token
 * through `PUT /_control/principals`) and endpoint, so each run's client receives its own events and no other's.
 */
export function openaiWebhookUrls(core: ProviderCore): Record<string, string> {
  return core.settings.get<Record<string, string>>(SETTING) ?? {};
}

/**
 * Sets (or, with url null, removes) a tenant's endpoint. A `secret` becomes the tenant's signing secret (kept in the
 * store, so a restarted provider signs with it again: restoreOpenaiWebhookSecrets); without one the tenant's
 * configured secret signs.
 */
export function setOpenaiWebhookUrl(core: ProviderCore, tenant: string, url: string | null, secret?: string): Record<string, string> {
  const urls = { ...openaiWebhookUrls(core) };
  const secrets = { ...core.settings.get<Record<string, string>>(SECRETS) };
  if (url === null) {
    delete urls[tenant];
    delete secrets[tenant];
  } else {
    urls[tenant] = url;
    if (secret !== undefined) secrets[tenant] = secret;
  }
  core.settings.put(SETTING, urls);
  core.settings.put(SECRETS, secrets);
  if (secret !== undefined && url !== null) core.tokens.webhook_secrets[tenant] = secret;
  return urls;
}

/** At start: the endpoint secrets set through the control API before a restart sign the tenants' deliveries again. */
export function restoreOpenaiWebhookSecrets(core: ProviderCore): void {
  Object.assign(core.tokens.webhook_secrets, core.settings.get<Record<string, string>>(SECRETS));
}
