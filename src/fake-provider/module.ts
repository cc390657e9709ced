import type { Hono } from 'hono';
import type { Env } from './http/context.js';
import type { Mount } from './http/mount.js';
import { problem } from './http/problem.js';

/**
 * A path prefix a module serves in another wire API (dialects.md): every request under it — including the answers
 * no route gives (401, 404, 413, 500) — is journalled with the mount's dialect and answered in its error shape.
 */
export interface PrefixMount {
  prefix: string;
  mount: Mount;
  /** Request bodies up to this size reach the routes (default: the native 1 MiB). */
  maxBodyBytes?: number;
}

/**
 * One API of the provider (jobs, tasks): its routes behind the fault seam, its control additions, and its part of
 * the provider's life cycle. createProvider wires each module explicitly; nothing attaches itself to the core.
 */
export interface ProviderModule {
  name: string;
  /** Prefixes served in another API's dialect (set before the body guard, so even a 413 has their shape). */
  mounts?: PrefixMount[];
  /** Mount the module's routes (each behind `seam(core, route)`) and their 405 answers. */
  routes(app: Hono<Env>): void;
  /** Additions to `/_control` (already guarded by the control token). */
  control?(app: Hono<Env>): void;
  /** Catch up on everything that fell due (called before every request). */
  tick(): void;
  /** Forget the module's state (`POST /_control/reset`), inside the provider's reset. */
  reset(): void;
  close(): void;
}

/** 405 with `Allow` for every method a path does not serve (register after the module's routes). */
export function methodNotAllowed(app: Hono<Env>, allowed: Array<[path: string, allow: string]>): void {
  for (const [path, allow] of allowed) {
    app.all(path, (c) => problem(c, 405, 'method_not_allowed', `${c.req.method} is not allowed here; use ${allow}`, {}, { allow }));
  }
}
