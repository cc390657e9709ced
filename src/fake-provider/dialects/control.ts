import type { Hono } from 'hono';
import { z } from 'zod';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import { json, problem } from '../http/problem.js';
import { openaiWebhookUrls, setOpenaiWebhookUrl } from './openai/webhook-events.js';

const Body = z
  .object({
    tenant: z.string().min(1).max(200).default('acme'),
    url: z.url({ protocol: /^https?$/, message: 'url must be an http(s) URL' }).max(2000).nullable(),
  })
  .strict();

/** `PUT /_control/dialects/openai/webhook {"tenant"?, "url"}` (null removes it); `GET` lists them per tenant. */
export function dialectControl(core: ProviderCore): (app: Hono<Env>) => void {
  return (app) => {
    app.get('/dialects/openai/webhook', () => json({ urls: openaiWebhookUrls(core) }));
    app.put('/dialects/openai/webhook', async (c) => {
      let raw: unknown;
      try {
        raw = JSON.parse(await c.req.text());
      } catch {
        return problem(c, 400, 'invalid_json', 'the body is not valid JSON');
      }
      const body = Body.safeParse(raw);
      if (!body.success) {
        return problem(c, 400, 'invalid_request', 'expected {"tenant"?: "<tenant>", "url": "<http(s) URL>" | null}', {
          errors: body.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })),
        });
      }
      return json({ urls: setOpenaiWebhookUrl(core, body.data.tenant, body.data.url) });
    });
  };
}
