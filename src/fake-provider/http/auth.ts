import type { ProviderCore } from '../core.js';
import type { Principal } from '../../contract/principals.js';
import type { Ctx } from './context.js';
import { bearerToken, NATIVE_MOUNT } from './mount.js';
import { problem } from './problem.js';

/** The principal of the request's token, or a 401. Tenant and subject come from here only, never from a body. */
export function authenticate(core: ProviderCore, c: Ctx): Principal | Response {
  const token = (c.get('mount') ?? NATIVE_MOUNT).credentials(c.req.raw.headers);
  const principal = token ? core.tokens.tokens[token] : undefined;
  if (!principal) {
    return problem(
      c,
      401,
      'unauthorized',
      token ? 'unknown bearer token' : 'missing bearer token (Authorization: Bearer <token>)',
      {},
      { 'www-authenticate': 'Bearer' },
    );
  }
  c.get('draft').principal = principal;
  return principal;
}

export function authenticateControl(core: ProviderCore, c: Ctx): true | Response {
  if (bearerToken(c.req.raw.headers) === core.tokens.control_token) return true;
  return problem(c, 401, 'unauthorized', 'the control API needs the control token', {}, { 'www-authenticate': 'Bearer' });
}
