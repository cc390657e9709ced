import { randomBytes } from 'node:crypto';
import type { ClientDialect } from '../../dialect/batch-input.js';
import { WebhookRelay } from './webhook-relay.js';

/**
 * APIs whose webhooks go to an endpoint configured per project (docs/dialects.md), not to a URL a create names:
 * OpenAI. A run in one gets its own project (`openRunProject`).
 */
export function projectWebhooks(dialect: ClientDialect): boolean {
  return dialect === 'openai';
}

export interface RunProject {
  /** The run's own token: its tenant `run-<id>` (the principal the judge reads the journal for). */
  token: string;
  /** The project's endpoint; close it with the run. */
  relay: WebhookRelay;
}

/**
 * The run's own project: a tenant `run-<id>` with its own token, and an endpoint with its own `whsec_` signing secret —
 * a relay of the run's, which hands each delivery to one of the run's live workers (`targets`). Each worker so
 * receives the events of this run's jobs and no other's, signed with the secret the provider then holds for the
 * tenant, and a killed worker needs no re-pointing. Set through the control API, as a harness in front of any
 * provider would; a provider restarted on its file keeps both.
 */
export async function openRunProject(
  provider: { url: string; controlToken: string },
  dialect: ClientDialect,
  targets: () => number[],
): Promise<RunProject> {
  const id = randomBytes(6).toString('hex');
  const tenant = `run-${id}`;
  const token = `run-${id}-${randomBytes(16).toString('hex')}`;
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const put = async (path: string, body: unknown) => {
    const res = await fetch(`${provider.url}${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${provider.controlToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`PUT ${path} answered ${res.status}: ${await res.text()}`);
  };
  const relay = await WebhookRelay.start(targets);
  try {
    await put('/_control/principals', { tokens: { [token]: { tenant, subject: 'agent-1', roles: ['submitter'] } } });
    await put(`/_control/dialects/${dialect}/webhook`, { tenant, url: relay.url, secret });
  } catch (err) {
    await relay.close();
    throw err;
  }
  return { token, relay };
}
