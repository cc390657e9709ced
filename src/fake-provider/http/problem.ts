import type { Ctx } from './context.js';

export interface ProblemExtras {
  errors?: Array<{ path: string; message: string }>;
  job?: unknown;
  [k: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict',
  410: 'Gone', 413: 'Content Too Large', 422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error',
  502: 'Bad Gateway', 503: 'Service Unavailable',
};

/** An RFC 9457 problem with a stable `code`; the code is also noted for the journal. */
export function problem(c: Ctx, status: number, code: string, detail: string, extras: ProblemExtras = {}, headers: Record<string, string> = {}): Response {
  c.get('draft').code = code;
  // Under a dialect's mount every error (auth, injected faults, body limits) wears that API's own shape.
  const render = c.get('renderError');
  if (render) return render(c, status, code, detail, extras, headers);
  const body = {
    type: `https://jobproof.dev/problems/${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    code,
    detail,
    request_id: c.get('requestId'),
    ...extras,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  });
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}
