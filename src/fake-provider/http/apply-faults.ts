import type { ProviderCore } from '../core.js';
import type { FiredRule } from '../faults/decide.js';
import type { RequestRoute } from '../../contract/faults.js';
import type { Ctx } from './context.js';
import { problem } from './problem.js';

/**
 * The fault seam of the request path. `before` counts the request on its route and answers the faults that stop
 * it before it executes; `after` turns an executed answer into the one the fault plan wants the client to see.
 */
export function decideFault(core: ProviderCore, c: Ctx, route: RequestRoute): FiredRule | null {
  const fired = core.faults.decide(route);
  if (fired) c.get('draft').fault = { rule_id: fired.rule_id, type: fired.fault.type };
  return fired;
}

/** A response that ends the request before execution, or null to go on. */
export function beforeExecution(core: ProviderCore, c: Ctx, fired: FiredRule | null): Response | null {
  const f = fired?.fault;
  if (f?.type === 'rate_limit') {
    return problem(c, 429, 'rate_limited', 'too many requests (injected fault)', {}, { 'retry-after': String(f.retry_after) });
  }
  if (f?.type === 'fail_before_commit') {
    const headers: Record<string, string> = f.retry_after !== undefined ? { 'retry-after': String(f.retry_after) } : {};
    return problem(c, f.status, 'provider_unavailable', 'the provider failed before executing the request (injected fault)', {}, headers);
  }
  return null;
}

export async function delayIfAsked(core: ProviderCore, c: Ctx, fired: FiredRule | null): Promise<void> {
  if (fired?.fault.type !== 'delay') return;
  c.get('draft').delivery = 'delayed';
  await core.clock.sleep(fired.fault.ms);
  if (core.isClosed()) throw new ProviderClosedError();
  core.engine.tick();
}

export function afterExecution(c: Ctx, fired: FiredRule | null, res: Response): Response {
  const f = fired?.fault;
  if (f?.type === 'error_after_commit') {
    return problem(c, 500, 'internal_error', 'the request was executed, then the provider failed to answer (injected fault)');
  }
  if (f?.type === 'lose_response') {
    const draft = c.get('draft');
    draft.delivery = 'lost';
    draft.loss = f.mode;
  }
  return res;
}

/** The provider stopped while this request was held: like a process that died, it never answers. */
export class ProviderClosedError extends Error {
  constructor() {
    super('the provider stopped while the request was in flight');
  }
}
