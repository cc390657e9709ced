import { PROBLEM_TYPE_BASE } from '../../contract/problems.js';
import type { Profile } from '../../contract/profiles.js';
import { render } from '../../contract/profile-template.js';
import { bearerToken, STATUS_TITLES, type ErrorRenderer, type Mount } from '../http/mount.js';

/** Every refusal in the profile's own envelope and status (`errors`); jobproof's code stays in the journal. */
export function profileErrorRenderer(p: Profile): ErrorRenderer {
  return (e) => {
    const status = p.errors.statuses[e.code] ?? e.status;
    const vars: Record<string, unknown> = {
      status,
      code: p.errors.codes[e.code] ?? e.code,
      jobproof_code: e.code,
      message: e.detail,
      title: STATUS_TITLES[status] ?? 'Error',
      type: `${PROBLEM_TYPE_BASE}${e.code}`,
      request_id: e.requestId,
    };
    const body = render(p.errors.body, (n) => vars[n]);
    const merged =
      p.errors.extras === 'merge' && body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, ...e.extras } : body;
    return { body: merged, contentType: p.errors.content_type, status };
  };
}

/** Where the profile's token is: a bearer token, an API-key header (maybe with a scheme), or none (a fixed principal). */
function credentials(p: Profile): Mount['credentials'] {
  const a = p.auth;
  if (a.type === 'bearer') return bearerToken;
  if (a.type === 'none') return () => a.token;
  return (h) => {
    const v = h.get(a.name)?.trim();
    if (!v) return null;
    if (!a.scheme) return v;
    const m = new RegExp(`^${a.scheme}\\s+(\\S+)$`, 'i').exec(v);
    return m ? m[1]! : null;
  };
}

export function profileMount(p: Profile): Mount {
  return { dialect: p.name, renderError: profileErrorRenderer(p), credentials: credentials(p) };
}
