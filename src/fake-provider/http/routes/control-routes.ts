import { Hono } from 'hono';
import { z } from 'zod';
import { VirtualClock } from '../../../lib/clock.js';
import type { ProviderControl } from '../../control.js';
import type { ProviderCore } from '../../core.js';
import { ClockBodySchema, JournalQuerySchema } from '../../../contract/control.js';
import { authenticateControl } from '../auth.js';
import { zodErrors } from '../body.js';
import type { Ctx, Env } from '../context.js';
import { json, problem } from '../problem.js';

/** A control request's JSON body, or its 400 answer. */
export async function jsonBody(c: Ctx): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  try {
    return { ok: true, value: JSON.parse(await c.req.text()) };
  } catch (err) {
    return { ok: false, response: problem(c, 400, 'invalid_json', `the body is not valid JSON: ${(err as Error).message}`) };
  }
}

/** 400 `invalid_request` naming every field that failed. */
export function invalid(c: Ctx, error: z.ZodError, what: string): Response {
  const errors = zodErrors(error);
  return problem(c, 400, 'invalid_request', `invalid ${what}: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors });
}

const ScenarioBody = z.object({ name: z.string().min(1).max(100) }).strict();

/**
 * `/_control/…`: for harnesses and people, never for clients under test. Its own token; its requests are not
 * journalled, because the journal is the ground truth about the system under test. Changes go through the
 * provider's control service, as the dashboard's do.
 */
export function controlRoutes(core: ProviderCore, control: ProviderControl, extra?: (app: Hono<Env>) => void): Hono<Env> {
  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    const ok = authenticateControl(core, c);
    if (ok !== true) return ok;
    await next();
  });

  app.post('/reset', (_c) => {
    control.reset();
    return json({ reset: true });
  });

  app.get('/faults', () => json(control.faults()));
  app.delete('/faults', () => json(control.clearFaults()));
  app.put('/faults', async (c) => {
    const body = await jsonBody(c);
    if (!body.ok) return body.response;
    const installed = control.installFaults(body.value);
    return installed.ok ? json(installed.value) : invalid(c, installed.error, 'fault plan');
  });

  // `PUT /_control/scenario {"name"}`: a catalog scenario's behaviour and fault plan, at run time.
  if (control.hasScenarios) {
    app.put('/scenario', async (c) => {
      let raw: unknown;
      try {
        raw = JSON.parse(await c.req.text());
      } catch {
        return problem(c, 400, 'invalid_json', 'the body is not valid JSON');
      }
      const body = ScenarioBody.safeParse(raw);
      if (!body.success)
        return problem(c, 400, 'invalid_request', 'expected {"name": "<scenario>"}', { errors: [{ path: 'name', message: 'required' }] });
      const switched = control.switchScenario(body.data.name);
      if (!switched) return problem(c, 404, 'scenario_not_found', `no scenario named '${body.data.name}'`);
      return json({ scenario: body.data.name, ...switched });
    });
  }

  app.get('/journal', (c) => {
    const q = JournalQuerySchema.safeParse(c.req.query());
    if (!q.success) return invalid(c, q.error, 'query');
    const data = core.journal.since(q.data.since, q.data.limit + 1);
    const page = data.slice(0, q.data.limit);
    return json({ data: page, next_since: page.length ? page[page.length - 1]!.seq : q.data.since, has_more: data.length > q.data.limit });
  });

  app.post('/clock', async (c) => {
    if (!(core.clock instanceof VirtualClock)) {
      return problem(c, 409, 'clock_not_virtual', 'this provider runs on the real clock; start it with a virtual clock to advance time');
    }
    const body = await jsonBody(c);
    if (!body.ok) return body.response;
    const parsed = ClockBodySchema.safeParse(body.value);
    if (!parsed.success) return invalid(c, parsed.error, 'clock request');
    await core.clock.advance(parsed.data.advance_ms);
    return json({ now: new Date(core.clock.now()).toISOString() });
  });

  // The modules' additions (jobs: /behavior, /jobs; tasks: /objects, /principals, /task-behavior, /tasks).
  extra?.(app);
  return app;
}
