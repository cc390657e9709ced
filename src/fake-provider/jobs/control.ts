import type { Hono } from 'hono';
import type { ProviderControl } from '../control.js';
import type { ProviderCore } from '../core.js';
import { jobView } from '../engine/job-view.js';
import type { Env } from '../http/context.js';
import { json } from '../http/problem.js';
import { invalid, jsonBody } from '../http/routes/control-routes.js';

/**
 * Control additions of the jobs API (provider-api.md), mounted under `/_control` (already guarded by the control
 * token): `GET|PUT /behavior` (how new jobs behave), `GET /jobs` (every job of every tenant, with its behaviour).
 */
export function jobControl(core: ProviderCore): (app: Hono<Env>, control: ProviderControl) => void {
  return (app, control) => {
    app.get('/behavior', () => json(control.behavior()));
    app.put('/behavior', async (c) => {
      const body = await jsonBody(c);
      if (!body.ok) return body.response;
      const set = control.setBehavior(body.value);
      return set.ok ? json(set.value) : invalid(c, set.error, 'behavior');
    });

    app.get('/jobs', () => {
      const now = core.clock.now();
      return json({
        data: core.jobs.all().map((j) => ({ ...jobView(j, now), tenant: j.tenant, subject: j.subject, behavior: j.behavior })),
      });
    });
  };
}
