import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ProviderCore } from '../core.js';
import type { Ctx, Env, ErrorRenderer } from '../http/context.js';
import { parseIdempotencyKey } from '../http/idempotency-key.js';
import { problem } from '../http/problem.js';
import { anthropicError } from './anthropic/errors.js';
import { registerAnthropic } from './anthropic/routes.js';
import { openaiError } from './openai/errors.js';
import { registerOpenAI } from './openai/routes.js';
import { openaiWebhookShaper } from './openai/webhook-events.js';
import { DIALECT_MAX_BODY_BYTES } from './shared.js';
import { DialectRepo } from './store.js';

type DialectName = 'openai' | 'anthropic';

const MOUNTS: Array<{ dialect: DialectName; prefix: string; render: ErrorRenderer }> = [
  { dialect: 'openai', prefix: '/openai', render: openaiError },
  { dialect: 'anthropic', prefix: '/anthropic', render: anthropicError },
];

function mountOf(path: string) {
  return MOUNTS.find((m) => path === m.prefix || path.startsWith(`${m.prefix}/`));
}

export function isDialectPath(path: string): boolean {
  return mountOf(path) !== undefined;
}

/**
 * OpenAI at `/openai/v1`, Anthropic at `/anthropic/v1` (dialects.md), on the native app: the same journal, auth,
 * tenants, engine and fault seam. Under each prefix every error, whoever raises it, wears that API's error shape.
 */
export function mountDialects(app: Hono<Env>, core: ProviderCore): DialectRepo {
  const repo = new DialectRepo(core.db);
  const limit = bodyLimit({
    maxSize: DIALECT_MAX_BODY_BYTES,
    onError: (c) => problem(c as Ctx, 413, 'payload_too_large', `request bodies are limited to ${DIALECT_MAX_BODY_BYTES} bytes`, {}, { connection: 'close' }),
  });
  app.use('*', async (c, next) => {
    const mount = mountOf(c.req.path);
    if (!mount) return next();
    c.set('dialect', mount.dialect);
    c.set('renderError', mount.render);
    // These APIs keep no idempotency keys: a key a client sends anyway is journalled, and changes nothing.
    const key = c.req.header('idempotency-key');
    if (key !== undefined && key.trim() !== '') {
      const k = parseIdempotencyKey(key);
      c.get('draft').idempotency_key = k.ok === true ? k.key : key.trim().slice(0, 255);
    }
    if (c.req.method === 'POST' || c.req.method === 'PUT' || c.req.method === 'PATCH') {
      // The limit answers a too-large body itself, without calling next: its answer is the request's.
      const refused = await limit(c, next);
      if (refused instanceof Response) c.res = refused;
    } else await next();
    // Anthropic's SDK reads its request id from `request-id`.
    if (mount.dialect === 'anthropic') c.res.headers.set('request-id', c.get('requestId'));
  });
  const deps = { core, repo };
  registerOpenAI(app, deps);
  registerAnthropic(app, deps);
  core.webhooks.shapeKind('openai.batch', openaiWebhookShaper);
  // Anthropic has no batch webhooks, so its dialect sends none.
  core.webhooks.shapeKind('anthropic.message_batch', () => null);
  return repo;
}
