import type { Hono, MiddlewareHandler } from 'hono';
import type { RequestRoute } from '../../contract/faults.js';
import type { ProfileRoute } from '../../contract/profiles.js';
import { getPath } from '../../contract/profile-template.js';
import type { Ctx, Env } from '../http/context.js';
import { problem } from '../http/problem.js';

/** One route of a profile, compiled: where it answers and what answers it. */
export interface ProfileHandler {
  route: ProfileRoute;
  mw: MiddlewareHandler<Env>;
  handle(c: Ctx, id: string | null): Response | Promise<Response>;
}

interface Compiled extends ProfileHandler {
  re: RegExp;
  literal: number;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(prefix: string, h: ProfileHandler): Compiled {
  // `{id}` is the job; any other `{name}` (a model in `/models/{model}:batchGenerateContent`) matches one segment.
  const source = h.route.path
    .split(/(\{\w+\})/)
    .map((part) => (part === '{id}' ? '(?<id>[^/]+?)' : /^\{\w+\}$/.test(part) ? '[^/]+?' : esc(part)))
    .join('');
  return { ...h, re: new RegExp(`^${esc(prefix)}${source}$`), literal: h.route.path.replace(/\{\w+\}/g, '').length };
}

/** The job id a request names: from the path, else the body field the route names (an operation chosen by a header). */
async function idOf(c: Ctx, h: Compiled, m: RegExpExecArray): Promise<string | null | Response> {
  const raw = m.groups?.id;
  if (raw !== undefined) {
    try {
      return decodeURIComponent(raw);
    } catch {
      return problem(c, 404, 'job_not_found', 'no such job');
    }
  }
  if (!h.route.id_field) return null;
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return null;
  }
  const v = getPath(body, h.route.id_field);
  return typeof v === 'string' ? v : null;
}

/**
 * Serve a profile's routes under its prefix: one catch-all that matches each request to a route (method, path
 * template, operation header), runs it behind the fault seam, and answers 404/405 in the profile's shape otherwise.
 * Custom-method paths (`/operations/{id}:cancel`) and header-chosen operations need no router of their own.
 */
export function mountRoutes(app: Hono<Env>, prefix: string, handlers: ProfileHandler[]): void {
  // Longest literal first: `/ops/{id}:cancel` before `/ops/{id}`.
  const routes = handlers.map((h) => compile(prefix, h)).sort((a, b) => b.literal - a.literal);
  const serve = async (c: Ctx): Promise<Response> => {
    const path = c.req.path;
    const allowed = new Set<string>();
    for (const h of routes) {
      const m = h.re.exec(path);
      if (!m) continue;
      const op = h.route.operation;
      if (op && c.req.header(op.header) !== op.value) continue;
      if (h.route.method !== c.req.method) {
        allowed.add(h.route.method);
        continue;
      }
      let id: string | null | Response = null;
      const early = await h.mw(c, async () => {
        id = await idOf(c, h, m);
        if (id instanceof Response) c.res = id;
        else if (id === null && h.route.id_field)
          c.res = problem(c, 400, 'invalid_request', `${h.route.id_field} is required`, {
            errors: [{ path: h.route.id_field, message: 'required' }],
          });
        else c.res = await h.handle(c, id);
      });
      return early instanceof Response ? early : c.res;
    }
    if (allowed.size) {
      const allow = [...allowed].join(', ');
      return problem(c, 405, 'method_not_allowed', `${c.req.method} is not allowed here; use ${allow}`, {}, { allow });
    }
    return problem(c, 404, 'not_found', `no route for ${c.req.method} ${path}`);
  };
  app.all(prefix, serve);
  app.all(`${prefix}/*`, serve);
}

/** The fault seam's stored route name for each of profiles.md's route names. */
export const SEAM_ROUTE: Record<'create' | 'read' | 'find' | 'cancel' | 'results', RequestRoute> = {
  create: 'create',
  read: 'status',
  find: 'list',
  cancel: 'cancel',
  results: 'results',
};
