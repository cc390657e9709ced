import type { z } from 'zod';
import type { Ctx } from './context.js';
import { problem } from './problem.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Deeper JSON is refused (400): fingerprinting and storing a body walk it recursively. */
export const MAX_JSON_DEPTH = 100;

/** Whether a parsed JSON value nests deeper than `limit` (iterative, so a hostile body cannot overflow the stack). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

export type Parsed<T> = { ok: true; value: T; raw: unknown } | { ok: false; response: Response };

export function zodErrors(error: z.ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((i) => ({ path: i.path.length ? i.path.map(String).join('.') : '(body)', message: i.message }));
}

/** Read and validate a JSON body. `optional` treats an empty body as `{}`; the dialects carry whole batches (`maxBytes`). */
export async function readJson<S extends z.ZodType>(
  c: Ctx,
  schema: S,
  optional = false,
  maxBytes = MAX_BODY_BYTES,
): Promise<Parsed<z.output<S>>> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > maxBytes) {
    // The body guard (body-guard.ts) answers first on every served route; this holds for a body read in full anyway.
    return { ok: false, response: problem(c, 413, 'payload_too_large', `request bodies are limited to ${maxBytes} bytes`) };
  }
  let raw: unknown;
  if (text.trim() === '' && optional) raw = {};
  else {
    try {
      raw = JSON.parse(text);
    } catch (err) {
      return { ok: false, response: problem(c, 400, 'invalid_json', `the body is not valid JSON: ${(err as Error).message}`) };
    }
  }
  if (nestedDeeperThan(raw, MAX_JSON_DEPTH)) {
    const message = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
    return { ok: false, response: problem(c, 400, 'invalid_request', message, { errors: [{ path: '(body)', message }] }) };
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    return {
      ok: false,
      response: problem(c, 400, 'invalid_request', 'the body does not match the schema', { errors: zodErrors(result.error) }),
    };
  }
  return { ok: true, value: result.data, raw };
}
