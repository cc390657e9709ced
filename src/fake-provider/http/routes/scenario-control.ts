import type { Hono } from 'hono';
import { z } from 'zod';
import type { ProviderCore } from '../../core.js';
import { parseBehaviorConfig, type BehaviorConfigInput } from '../../../contract/behavior.js';
import type { FaultPlanInput } from '../../../contract/faults.js';
import type { Env } from '../context.js';
import { json, problem } from '../problem.js';

type Lookup = (name: string) => { behavior: BehaviorConfigInput; faults: FaultPlanInput } | undefined;

const Body = z.object({ name: z.string().min(1).max(100) }).strict();

/** `PUT /_control/scenario {"name"}`: switch behaviour and fault plan to a catalog scenario's, at run time. */
export function scenarioControl(core: ProviderCore, lookup: Lookup): (app: Hono<Env>) => void {
  return (app) => {
    app.put('/scenario', async (c) => {
      let raw: unknown;
      try {
        raw = JSON.parse(await c.req.text());
      } catch {
        return problem(c, 400, 'invalid_json', 'the body is not valid JSON');
      }
      const body = Body.safeParse(raw);
      if (!body.success)
        return problem(c, 400, 'invalid_request', 'expected {"name": "<scenario>"}', { errors: [{ path: 'name', message: 'required' }] });
      const s = lookup(body.data.name);
      if (!s) return problem(c, 404, 'scenario_not_found', `no scenario named '${body.data.name}'`);
      core.behaviors.set(parseBehaviorConfig(s.behavior));
      core.faults.install(s.faults);
      return json({ scenario: body.data.name, behavior: core.behaviors.get(), faults: core.faults.describe() });
    });
  };
}
