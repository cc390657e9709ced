import type { ProviderCore } from '../core.js';
import type { Principal } from '../model/principals.js';
import type { Ctx } from './context.js';
import { problem } from './problem.js';

function bearer(c: Ctx): string | null {
  const h = c.req.header('authorization');
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m ? m[1]! : null;
}

/** Anthropic's SDK sends `x-api-key` (or, with `authToken`, a bearer token); everything else sends a bearer token. */
function credential(c: Ctx): string | null {
  if (c.get('dialect') === 'anthropic') {
    const key = c.req.header('x-api-key')?.trim();
    if (key) return key;
  }
  return bearer(c);
}

/** The principal of the token, or a 401. Tenant and subject come from here only, never from a body. */
export function authenticate(core: ProviderCore, c: Ctx): Principal | Response {
  const token = credential(c);
  const principal = token ? core.tokens.tokens[token] : undefined;
  if (!principal) {
    return problem(c, 401, 'unauthorized', token ? 'unknown bearer token' : 'missing bearer token (Authorization: Bearer <token>)', {}, { 'www-authenticate': 'Bearer' });
  }
  c.get('draft').principal = principal;
  return principal;
}

export function authenticateControl(core: ProviderCore, c: Ctx): true | Response {
  if (bearer(c) === core.tokens.control_token) return true;
  return problem(c, 401, 'unauthorized', 'the control API needs the control token', {}, { 'www-authenticate': 'Bearer' });
}
