import type { Hono } from 'hono';
import type { ProviderControl } from './control.js';
import type { Env } from './http/context.js';
import type { Mount } from './http/mount.js';
import { problem } from './http/problem.js';
import type { EventShaper } from './webhooks/dispatcher.js';

/** A prefix served in another wire API, and how large a body its routes take (default: the native 1 MiB). */
export interface PrefixMount {
  prefix: string;
  mount: Mount;
  maxBodyBytes?: number;
}

/**
 * One API of the provider (jobs, tasks, dialects): its routes behind the fault seam, its control additions, the
 * webhook events it shapes, and its part of the provider's life cycle. createProvider registers each module through
 * this interface alone; nothing attaches itself to the core.
 */
export interface ProviderModule {
  name: string;
  /**
   * Path prefixes this module serves in another wire API (dialects.md: `/openai/v1`, `/anthropic/v1`). Every
   * request under a prefix is journalled with its dialect, and every error answer there — the seam's, the body
   * guard's 413, 404, 405, 500 — takes the mount's shape. Native routes need none.
   */
  mounts?: PrefixMount[];
  /** Mount the module's routes (each behind `seam(core, route)`) and their 405 answers. */
  routes(app: Hono<Env>): void;
  /**
   * Additions to `/_control` (already guarded by the control token); changes the dashboard makes too go through
   * `control`, the provider-wide service, so both act alike.
   */
  control?(app: Hono<Env>, control: ProviderControl): void;
  /** The module's own webhook events for jobs of these kinds (a dialect's), or null where it sends none. */
  webhookShapers?: Record<string, EventShaper>;
  /** Catch up on everything that fell due (called before every request). */
  tick(): void;
  /** Forget the module's state (`POST /_control/reset`) through its repos, inside the provider's reset transaction. */
  reset(): void;
  close(): void;
}

/** 405 with `Allow` for every method a path does not serve (register after the module's routes). */
export function methodNotAllowed(app: Hono<Env>, allowed: Array<[path: string, allow: string]>): void {
  for (const [path, allow] of allowed) {
    app.all(path, (c) => problem(c, 405, 'method_not_allowed', `${c.req.method} is not allowed here; use ${allow}`, {}, { allow }));
  }
}
