import type { Hono } from 'hono';
import { z } from 'zod';
import { parseBehaviorConfig } from '../../contract/behavior.js';
import type { ProviderCore } from '../core.js';
import { jobView } from '../engine/job-view.js';
import type { Env } from '../http/context.js';
import { json } from '../http/problem.js';
import { invalid, jsonBody } from '../http/routes/control-routes.js';

/**
 * Control additions of the jobs API (provider-api.md), mounted under `/_control` (already guarded by the control
 * token): `GET|PUT /behavior` (how new jobs behave), `GET /jobs` (every job of every tenant, with its behaviour).
 */
export function jobControl(core: ProviderCore): (app: Hono<Env>) => void {
  return (app) => {
    app.get('/behavior', () => json(core.behaviors.get()));
    app.put('/behavior', async (c) => {
      const body = await jsonBody(c);
      if (!body.ok) return body.response;
      try {
        core.behaviors.set(parseBehaviorConfig(body.value));
      } catch (err) {
        if (err instanceof z.ZodError) return invalid(c, err, 'behavior');
        throw err;
      }
      return json(core.behaviors.get());
    });

    app.get('/jobs', () => {
      const now = core.clock.now();
      return json({
        data: core.jobs.all().map((j) => ({ ...jobView(j, now), tenant: j.tenant, subject: j.subject, behavior: j.behavior })),
      });
    });
  };
}
