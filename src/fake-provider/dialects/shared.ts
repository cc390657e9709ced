import type { ProviderCore } from '../core.js';
import type { Ctx } from '../http/context.js';
import type { Principal } from '../../contract/principals.js';
import type { DialectRepo } from './store.js';

/** Whole batches travel in one body (an OpenAI upload, an Anthropic create): a larger limit than the native 1 MiB. */
export const DIALECT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** What every dialect route works with: the provider's core and the dialects' own tables. */
export interface DialectDeps {
  core: ProviderCore;
  repo: DialectRepo;
}

/** The authenticated principal of a seam-wrapped route. */
export function principal(c: Ctx): Principal {
  return c.get('principal');
}
