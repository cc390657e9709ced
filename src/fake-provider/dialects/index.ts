import type { Hono } from 'hono';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import { parseIdempotencyKey } from '../http/idempotency-key.js';
import { bearerToken, type Mount } from '../http/mount.js';
import type { ProviderModule } from '../module.js';
import { anthropicError } from './anthropic/errors.js';
import { registerAnthropic } from './anthropic/routes.js';
import { dialectControl } from './control.js';
import { openaiError } from './openai/errors.js';
import { registerOpenAI } from './openai/routes.js';
import { openaiWebhookShaper, restoreOpenaiWebhookSecrets, setOpenaiWebhookUrl } from './openai/webhook-events.js';
import { DIALECT_MAX_BODY_BYTES } from './shared.js';
import { DialectRepo } from './store.js';

export const OPENAI_MOUNT: Mount = { dialect: 'openai', renderError: openaiError, credentials: bearerToken };

/** Anthropic's SDK sends `x-api-key` (or, with `authToken`, a bearer token); it reads the request id from `request-id`. */
export const ANTHROPIC_MOUNT: Mount = {
  dialect: 'anthropic',
  renderError: anthropicError,
  credentials: (h) => h.get('x-api-key')?.trim() || bearerToken(h),
  requestIdHeader: 'request-id',
};

/** These APIs keep no idempotency keys: a key a client sends anyway is journalled, and changes nothing. */
function journalIdempotencyKey(app: Hono<Env>, prefix: string): void {
  app.use(`${prefix}/*`, async (c, next) => {
    const key = c.req.header('idempotency-key');
    if (key !== undefined && key.trim() !== '') {
      const k = parseIdempotencyKey(key);
      c.get('draft').idempotency_key = k.ok === true ? k.key : key.trim().slice(0, 255);
    }
    await next();
  });
}

export interface DialectsOptions {
  /** OpenAI: where each tenant's batch events go (`{tenant: url}`); replaces the stored ones when given. */
  openaiWebhooks?: Record<string, string>;
}

/**
 * OpenAI Batch at `/openai/v1`, Anthropic Message Batches at `/anthropic/v1` (dialects.md), as one provider module on
 * the same engine, journal, tenants and fault seam as the native API. A batch is a job of the engine; files and the
 * batch's dialect-side fields live in the dialects' own tables.
 */
export function createDialectsModule(core: ProviderCore, opts: DialectsOptions = {}): ProviderModule {
  const repo = new DialectRepo(core.db);
  const deps = { core, repo };
  restoreOpenaiWebhookSecrets(core);
  if (opts.openaiWebhooks) for (const [tenant, url] of Object.entries(opts.openaiWebhooks)) setOpenaiWebhookUrl(core, tenant, url);
  return {
    name: 'dialects',
    webhookShapers: {
      'openai.batch': openaiWebhookShaper,
      // Anthropic has no batch webhooks, so its dialect sends none.
      'anthropic.message_batch': () => null,
    },
    mounts: [
      { prefix: '/openai', mount: OPENAI_MOUNT, maxBodyBytes: DIALECT_MAX_BODY_BYTES },
      { prefix: '/anthropic', mount: ANTHROPIC_MOUNT, maxBodyBytes: DIALECT_MAX_BODY_BYTES },
    ],
    routes: (app) => {
      journalIdempotencyKey(app, '/openai');
      journalIdempotencyKey(app, '/anthropic');
      registerOpenAI(app, deps);
      registerAnthropic(app, deps);
    },
    control: dialectControl(core, repo),
    // Batches are jobs: the jobs module's tick moves them.
    tick: () => undefined,
    reset: () => repo.reset(),
    close: () => undefined,
  };
}
