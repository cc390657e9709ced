import type { Hono } from 'hono';
import type { z } from 'zod';
import { isoTime } from '../../lib/clock.js';
import type { ProviderCore } from '../core.js';
import { zodErrors } from '../http/body.js';
import type { Ctx, Env } from '../http/context.js';
import { json, problem } from '../http/problem.js';
import type { Principal } from '../../contract/principals.js';
import { ObjectRefSchema, PutObjectBodySchema, PutPrincipalsBodySchema, TaskBehaviorSchema } from '../../contract/tasks.js';
import type { TaskService } from './task-service.js';

async function body<S extends z.ZodType>(c: Ctx, schema: S): Promise<{ ok: true; value: z.output<S> } | { ok: false; response: Response }> {
  let raw: unknown;
  try {
    raw = JSON.parse(await c.req.text());
  } catch (err) {
    return { ok: false, response: problem(c, 400, 'invalid_json', `the body is not valid JSON: ${(err as Error).message}`) };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const errors = zodErrors(parsed.error);
    return {
      ok: false,
      response: problem(c, 400, 'invalid_request', `invalid body: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, { errors }),
    };
  }
  return { ok: true, value: parsed.data };
}

/**
 * Control additions of tasks-api.md, mounted under `/_control` (already guarded by the control token):
 * `PUT /objects/{ref}`, `GET|PUT /principals`, `GET|PUT /task-behavior`, `GET /tasks`.
 */
export function taskControl(core: ProviderCore, svc: TaskService): (app: Hono<Env>) => void {
  return (app) => {
    app.put('/objects/:object_ref', async (c) => {
      const ref = c.req.param('object_ref');
      if (!ObjectRefSchema.safeParse(ref).success)
        return problem(c, 400, 'invalid_request', 'invalid object_ref', {
          errors: [{ path: 'object_ref', message: 'must be 1-128 characters of [A-Za-z0-9_.:-]' }],
        });
      const b = await body(c, PutObjectBodySchema);
      if (!b.ok) return b.response;
      const { object, redrafted } = svc.putObject(b.value.tenant, ref, b.value.data);
      return json({
        tenant: object.tenant,
        object_ref: object.object_ref,
        version: object.version,
        data: object.data,
        updated_at: isoTime(object.updated_at),
        redrafted_tasks: redrafted,
      });
    });

    app.get('/principals', () => json({ tokens: core.tokens.tokens }));
    app.put('/principals', async (c) => {
      const b = await body(c, PutPrincipalsBodySchema);
      if (!b.ok) return b.response;
      const next: Record<string, Principal> = b.value.replace ? {} : { ...core.tokens.tokens };
      for (const [token, p] of Object.entries(b.value.tokens)) {
        if (p === null) delete next[token];
        else next[token] = p;
      }
      core.tokens.tokens = next;
      return json({ tokens: next });
    });

    app.get('/task-behavior', () => json(svc.behavior()));
    app.put('/task-behavior', async (c) => {
      const b = await body(c, TaskBehaviorSchema);
      if (!b.ok) return b.response;
      return json(svc.setBehavior(b.value));
    });

    app.get('/tasks', () => {
      return json({
        data: svc.tasks
          .allIds()
          .map((id) => svc.tasks.get(id)!)
          .map((t) => ({ ...svc.view(t), tenant: t.tenant, behavior: t.behavior })),
      });
    });
  };
}
