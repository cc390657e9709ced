import type { ProviderCore } from '../core.js';
import type { RequestRoute } from '../../contract/faults.js';
import type { Principal } from '../../contract/principals.js';
import type { KeyScope, StoredAnswer } from '../store/idempotency-repo.js';
import type { FiredRule } from '../faults/decide.js';
import { problem } from './problem.js';
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

/**
 * Reserve an idempotency key, then hold the request if a `delay` fault asks for it: the key stays in flight meanwhile,
 * which is how a concurrent duplicate meets 409. A request that dies while held frees its key.
 */
export async function reserveThenDelay(core: ProviderCore, c: Ctx, scope: KeyScope, fp: string, fired: FiredRule | null): Promise<void> {
  core.idempotency.reserve(scope, fp, core.clock.now(), core.options.idempotencyTtlMs);
  try {
    await delayIfAsked(core, c, fired);
  } catch (err) {
    core.idempotency.release(scope);
    throw err;
  }
}

/** 409 while the first request with this key is still being processed. */
export function inProgress(core: ProviderCore, c: Ctx): Response {
  return problem(c, 409, 'idempotency_request_in_progress', 'the first request with this Idempotency-Key is still being processed', {}, {
    'retry-after': String(core.options.pollAdviceSeconds),
  });
}
