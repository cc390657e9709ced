import type { ProviderCore } from '../core.js';
import type { RequestRoute } from '../model/faults.js';
import type { Principal } from '../model/principals.js';
import type { StoredAnswer } from '../store/idempotency-repo.js';
import { afterExecution, beforeExecution, decideFault, delayIfAsked } from './apply-faults.js';
import { authenticate } from './auth.js';
import type { Ctx } from './context.js';

export type Handler = (p: Principal) => Promise<Response> | Response;

/** Auth, fault decision and the before/after fault seam around one executed request (jobs and tasks alike). */
export async function guarded(core: ProviderCore, c: Ctx, route: RequestRoute, run: Handler): Promise<Response> {
  c.get('draft').route = route;
  const principal = authenticate(core, c);
  if (principal instanceof Response) return principal;
  const fired = decideFault(core, c, route);
  const refused = beforeExecution(core, c, fired);
  if (refused) return refused;
  await delayIfAsked(core, c, fired);
  return afterExecution(c, fired, await run(principal));
}

/** A stored idempotent answer as a Response; a replay says so with `Idempotent-Replayed: true`. */
export function storedResponse(a: StoredAnswer, replayed: boolean): Response {
  const headers = new Headers(a.headers);
  if (replayed) headers.set('idempotent-replayed', 'true');
  return new Response(a.body, { status: a.status, headers });
}
