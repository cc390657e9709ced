import { Hono } from 'hono';
import type { z } from 'zod';
import { VirtualClock } from '../../../lib/clock.js';
import type { ProviderCore } from '../../core.js';
import { ClockBodySchema, JournalQuerySchema } from '../../../contract/control.js';
import { FaultPlanSchema } from '../../../contract/faults.js';
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

/**
 * `/_control/…`: for harnesses and people, never for clients under test. Its own token; its requests are not
 * journalled, because the journal is the ground truth about the system under test.
 */
export function controlRoutes(core: ProviderCore, extra?: (app: Hono<Env>) => void): Hono<Env> {
  const app = new Hono<Env>();
  app.use('*', async (c, next) => {
    const ok = authenticateControl(core, c);
    if (ok !== true) return ok;
    await next();
  });

  app.post('/reset', (_c) => {
    core.reset();
    return json({ reset: true });
  });

  app.get('/faults', () => json(core.faults.describe()));
  app.delete('/faults', () => {
    core.faults.clear();
    return json(core.faults.describe());
  });
  app.put('/faults', async (c) => {
    const body = await jsonBody(c);
    if (!body.ok) return body.response;
    const plan = FaultPlanSchema.safeParse(body.value);
    if (!plan.success) return invalid(c, plan.error, 'fault plan');
    core.faults.install(plan.data);
    return json(core.faults.describe());
  });

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
