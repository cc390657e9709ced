import type { Hono } from 'hono';
import type { z } from 'zod';
import { type ControlDialectBatchesSchema, OpenaiWebhookBodySchema } from '../../contract/control.js';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import { json, problem } from '../http/problem.js';
import { anthropicBatchView } from './anthropic/view.js';
import { lineOutcomes } from './lines.js';
import { batchFacts } from './openai/usage.js';
import { openaiBatchView } from './openai/view.js';
import { openaiWebhookUrls, setOpenaiWebhookUrl } from './openai/webhook-events.js';
import type { DialectRepo } from './store.js';

/**
 * `GET /_control/dialects/batches`: every batch as the judge needs it — its dialect view now, and what became of each
 * request, by `custom_id` in input order (the ground truth for "every request accounted for, errored ones reported").
 */
function batchesTruth(core: ProviderCore, repo: DialectRepo, origin: string): z.infer<typeof ControlDialectBatchesSchema>['data'] {
  const now = core.clock.now();
  return repo.allBatches().flatMap((b) => {
    const job = core.jobs.get(b.batch_id);
    if (!job) return [];
    const requests = repo.requests(b.batch_id);
    const outcomes = lineOutcomes(job, requests.length, now, b.invalid_lines);
    const view = b.dialect === 'openai' ? openaiBatchView(job, b, now, batchFacts(repo, b)) : anthropicBatchView(job, b, now, origin);
    return [
      {
        batch_id: b.batch_id,
        dialect: b.dialect,
        tenant: b.tenant,
        state: job.state,
        deleted: b.deleted_at !== null,
        view,
        requests: requests.map((r, i) => ({ custom_id: r.custom_id, outcome: outcomes[i]! })),
      },
    ];
  });
}

/** `PUT /_control/dialects/openai/webhook {"tenant"?, "url", "secret"?}` (url null removes it); `GET` lists the URLs per tenant. */
export function dialectControl(core: ProviderCore, repo: DialectRepo): (app: Hono<Env>) => void {
  return (app) => {
    app.get('/dialects/batches', (c) => json({ data: batchesTruth(core, repo, new URL(c.req.url).origin) }));
    app.get('/dialects/openai/webhook', () => json({ urls: openaiWebhookUrls(core) }));
    app.put('/dialects/openai/webhook', async (c) => {
      let raw: unknown;
      try {
        raw = JSON.parse(await c.req.text());
      } catch {
        return problem(c, 400, 'invalid_json', 'the body is not valid JSON');
      }
      const body = OpenaiWebhookBodySchema.safeParse(raw);
      if (!body.success) {
        return problem(c, 400, 'invalid_request', 'expected {"tenant"?: "<tenant>", "url": "<http(s) URL>" | null, "secret"?: "whsec_…"}', {
          errors: body.error.issues.map((i) => ({ path: i.path.join('.') || '(body)', message: i.message })),
        });
      }
      return json({ urls: setOpenaiWebhookUrl(core, body.data.tenant, body.data.url, body.data.secret) });
    });
  };
}
