import type { StoredAnswer } from '../store/idempotency-repo.js';
import { leanAnswer } from './answer.js';
import type { Ctx } from './context.js';
import { NATIVE_MOUNT } from './mount.js';

export interface ProblemExtras {
  errors?: Array<{ path: string; message: string }>;
  job?: unknown;
  [k: string]: unknown;
}

/**
 * An error answer as a storable answer, in the shape of the mount serving the request (native: RFC 9457 problem
 * details); its `code` is noted for the journal. For answers an idempotency key must replay.
 */
export function errorAnswer(
  c: Ctx,
  status: number,
  code: string,
  detail: string,
  extras: ProblemExtras = {},
  headers: Record<string, string> = {},
): StoredAnswer {
  c.get('draft').code = code;
  const m = c.get('mount') ?? NATIVE_MOUNT;
  const r = m.renderError({ status, code, detail, extras, requestId: c.get('requestId') });
  return {
    status: r.status ?? status,
    headers: { 'content-type': r.contentType ?? 'application/json', ...headers },
    body: JSON.stringify(r.body),
  };
}

/** An error answer with a stable `code`, in the shape of the mount serving the request. */
export function problem(
  c: Ctx,
  status: number,
  code: string,
  detail: string,
  extras: ProblemExtras = {},
  headers: Record<string, string> = {},
): Response {
  const a = errorAnswer(c, status, code, detail, extras, headers);
  return leanAnswer(c, a.body, a.status, a.headers);
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** `json` with the request's ids already in (http/answer.ts): for routes that have their context at hand. */
export function jsonAnswer(c: Ctx, body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return leanAnswer(c, JSON.stringify(body), status, { 'content-type': 'application/json', ...headers });
}
