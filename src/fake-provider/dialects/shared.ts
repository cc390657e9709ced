import type { ProviderCore } from '../core.js';
import { authenticate } from '../http/auth.js';
import type { Ctx } from '../http/context.js';
import type { Principal } from '../model/principals.js';
import type { DialectRepo } from './store.js';

/** Whole batches travel in one body (an OpenAI upload, an Anthropic create): a larger limit than the native 1 MiB. */
export const DIALECT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** What every dialect route works with: the provider's core and the dialects' own tables. */
export interface DialectDeps {
  core: ProviderCore;
  repo: DialectRepo;
}

/** A request that is journalled and authenticated but is no fault route (Anthropic's DELETE). */
export async function authed(core: ProviderCore, c: Ctx, route: string, run: (p: Principal) => Response | Promise<Response>): Promise<Response> {
  c.get('draft').route = route;
  const p = authenticate(core, c);
  return p instanceof Response ? p : run(p);
}

/** The principal a request's credentials name, without answering anything (to journal a refused request fully). */
export function peekPrincipal(core: ProviderCore, c: Ctx): Principal | null {
  const draft = c.get('draft');
  const code = draft.code;
  const p = authenticate(core, c);
  draft.code = code;
  return p instanceof Response ? null : p;
}

