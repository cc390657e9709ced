import type { Ctx } from './context.js';
import { LOSS_HEADER } from './context.js';

/**
 * Answers built whole, with the ids every answer carries already in (docs/decisions/019-lean-answers.md).
 *
 * The journal middleware used to stamp `X-Request-ID` (and `X-Trace-ID`, a dialect's request-id header) onto every
 * answer after its route returned, and to read `Retry-After` back for the journal. Touching `headers` of
 * @hono/node-server's lightweight Response turns its plain header object into a web `Headers` (then copied back into
 * an object on the way out): a fifth of a status read. The ids are known before the route runs, so the answers of
 * `json`/`problem` carry them from the start as a plain object, and remember their `Retry-After` here. Any other
 * answer (a stored idempotent replay, a dialect's own Response, one a fault rewrote) is not in this map and is
 * stamped through its headers as before: the map is a shortcut, never a second set of rules.
 */
const lean = new WeakMap<Response, string | null>();

/** The stamp headers of this request (set by the journal middleware before the route runs). */
export function stampOf(c: Ctx): Record<string, string> | undefined {
  return c.get('stamp');
}

/** An answer with a plain header object: `headers`, then the request's stamp headers. */
export function leanAnswer(c: Ctx, body: string | null, status: number, headers: Record<string, string>): Response {
  const stamp = stampOf(c);
  if (!stamp) return new Response(body, { status, headers });
  const res = new Response(body, { status, headers: { ...headers, ...stamp } });
  lean.set(res, headers['retry-after'] ?? null);
  return res;
}

/** Whether `res` already carries its stamp headers (built by `leanAnswer` and not touched since). */
export function isLean(res: Response): boolean {
  return lean.has(res);
}

/** `Retry-After` of an answer, read without turning a lean answer's headers into a `Headers`. */
export function retryAfterOf(res: Response): string | null {
  const v = lean.get(res);
  return v !== undefined ? v : res.headers.get('retry-after');
}

/** Set a header after the answer was built; the answer is then no longer lean (its headers may have changed). */
export function setAnswerHeader(res: Response, name: string, value: string): void {
  lean.delete(res);
  res.headers.set(name, value);
}

/** The loss the app asked its transport to enact (LOSS_HEADER), or null; a lean answer never carries one. */
export function lossOf(res: Response): string | null {
  return lean.has(res) ? null : res.headers.get(LOSS_HEADER);
}
