import type { MiddlewareHandler } from 'hono';
import type { ProviderCore } from '../../core.js';
import type { Principal } from '../../../contract/principals.js';
import type { RequestRoute } from '../../../contract/faults.js';
import { authenticate } from '../auth.js';
import type { Ctx, Env } from '../context.js';
import { delay, enactAfter, refuseBefore } from './enact.js';

export interface SeamOptions<I> {
  /**
   * Reads what the journal needs before the fault decision (idempotency key, fingerprint, client_ref) into the
   * draft, so even a refused request is journalled with them; returns what the handler gets as `c.get('input')`.
   * Never answers: a bad body is the handler's to answer, after the fault decision.
   */
  describe?: (c: Ctx, principal: Principal) => I | Promise<I>;
  /** The handler calls `c.get('hold')()` where an injected delay must happen (after reserving its key). */
  hold?: boolean;
  /** false: journal the route but never consult the fault plan. */
  faults?: boolean;
}

/** What the route's `describe` hook returned for this request, typed by that hook. */
export function described<I>(c: Ctx, _describe: (c: Ctx, principal: Principal) => I | Promise<I>): I {
  return c.get('input') as I;
}

/** Answers given before anything executed (see `unexecuted`): the seam passes them untouched. */
const UNEXECUTED = new WeakSet<Response>();

/** Mark an answer given before the handler executed anything: no after-fault (loss, 500 after commit) applies. */
export function unexecuted(res: Response): Response {
  UNEXECUTED.add(res);
  return res;
}

/**
 * The fault seam: one middleware around a route, keyed by its route name. Authenticates, describes the request for
 * the journal, decides the fault, refuses or delays before the handler and enacts after it; the journal middleware
 * writes the entry. See docs/decisions/010-fault-seam.md.
 */
export function seam<I = undefined>(core: ProviderCore, route: RequestRoute, opts?: SeamOptions<I>): MiddlewareHandler<Env>;
/** A route outside the fault plan (`faults: false`): journalled under its own name, never faulted. */
export function seam<I = undefined>(core: ProviderCore, route: string, opts: SeamOptions<I> & { faults: false }): MiddlewareHandler<Env>;
export function seam<I = undefined>(core: ProviderCore, route: string, opts: SeamOptions<I> = {}): MiddlewareHandler<Env> {
  return async (c, next) => {
    const draft = c.get('draft');
    draft.route = route;
    const principal = authenticate(core, c);
    if (principal instanceof Response) return principal;
    c.set('principal', principal);
    c.set('input', opts.describe ? await opts.describe(c, principal) : undefined);

    // The overloads let only a fault route (RequestRoute) through without `faults: false`.
    const fired = opts.faults === false ? null : core.faults.decide(route as RequestRoute);
    if (fired)
      draft.fault = { rule_id: fired.rule_id, type: fired.fault.type, ...('mode' in fired.fault ? { mode: fired.fault.mode } : {}) };
    c.set('fault', fired);
    const refused = refuseBefore(c, fired);
    if (refused) return refused;

    let held = false;
    const hold = async () => {
      if (held) return;
      held = true;
      await delay(core, c, fired);
    };
    c.set('hold', hold);
    // A delayed request counts as held until its handler has run: until then it may still create what it asks for.
    const delayed = fired?.fault.type === 'delay';
    const worker = c.get('workerId');
    if (delayed) core.held.push(worker);
    try {
      if (!opts.hold) await hold();
      await next();
    } finally {
      if (delayed) core.held.splice(core.held.indexOf(worker), 1);
    }
    if (UNEXECUTED.has(c.res)) return;
    const answer = await enactAfter(core, c, fired, c.res);
    if (answer === c.res) return;
    // Hono's setter would merge the replaced answer's headers into the new one (a stale Location, the real job id).
    c.res = undefined;
    c.res = answer;
  };
}
