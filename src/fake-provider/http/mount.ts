import type { MiddlewareHandler } from 'hono';
import type { WireApi as Dialect } from '../../contract/journal.js';
import { PROBLEM_TYPE_BASE } from '../../contract/problems.js';

/** The wire API a request was made in (a dialect or a profile, contract/journal.ts); set by the mount serving it. */
export type { Dialect };

/** An error as the provider means it; a mount's renderer gives it that API's wire shape. */
export interface ApiError {
  status: number;
  /** jobproof's stable error code (`idempotency_key_reused`, `rate_limited`, …): the journal records it. */
  code: string;
  detail: string;
  extras: Record<string, unknown>;
  requestId: string;
}

/** The body (JSON-serialised) and content type of an error in one API's shape; `status` only if the API differs. */
export interface RenderedError {
  body: unknown;
  contentType?: string;
  status?: number;
}

export type ErrorRenderer = (e: ApiError) => RenderedError;

/** Where a set of routes is mounted: which API dialect it speaks, how its errors look, where its token is. */
export interface Mount {
  dialect: Dialect;
  renderError: ErrorRenderer;
  /** The token a principal is looked up by, or null when the request carries none. */
  credentials(headers: Headers): string | null;
  /** Another header the API's SDK reads the request id from (Anthropic: `request-id`), besides `X-Request-ID`. */
  requestIdHeader?: string;
}

/** HTTP reason phrases (RFC 9110) for a problem's `title`. */
export const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** RFC 9457 problem details with a stable `code` (provider-api.md): the native API's errors. */
export const problemDetails: ErrorRenderer = (e) => ({
  contentType: 'application/problem+json',
  body: {
    type: `${PROBLEM_TYPE_BASE}${e.code}`,
    title: STATUS_TITLES[e.status] ?? 'Error',
    status: e.status,
    code: e.code,
    detail: e.detail,
    request_id: e.requestId,
    ...e.extras,
  },
});

/** `Authorization: Bearer <token>` (native API, OpenAI). */
export function bearerToken(headers: Headers): string | null {
  const h = headers.get('authorization');
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m ? m[1]! : null;
}

export const NATIVE_MOUNT: Mount = { dialect: 'native', renderError: problemDetails, credentials: bearerToken };

/** Middleware for a dialect's sub-app: its routes answer errors in `m`'s shape and are journalled with its dialect. */
// Typed by the two variables it sets, not by http/context's Env, so that context.ts may import Mount without a cycle.
export function mount(m: Mount): MiddlewareHandler<{ Variables: { mount: Mount; draft: { dialect: Dialect } } }> {
  return async (c, next) => {
    c.set('mount', m);
    c.get('draft').dialect = m.dialect;
    await next();
  };
}
