import type { MiddlewareHandler } from 'hono';
import { MAX_BODY_BYTES } from './body.js';
import type { Ctx, Env } from './context.js';
import { problem } from './problem.js';
import { keepCallerSignal } from '../transports/in-process-request.js';

/**
 * How much of an oversized body is read (and thrown away) before the 413 is sent. Clients that write their whole
 * body before reading the answer (Python's http.client, requests) only see an answer sent after their last byte;
 * closing earlier gives them a BrokenPipeError instead of the 413. Past this bound the connection is closed.
 */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

function tooLarge(c: Ctx, close: boolean, max: number): Response {
  const detail = `request bodies are limited to ${max} bytes`;
  return problem(c, 413, 'payload_too_large', detail, {}, close ? { connection: 'close' } : {});
}

/** Read the rest of a stream up to `limit` bytes in all; true if it ended within it. */
export async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, seen: number, limit: number): Promise<boolean> {
  let size = seen;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return true;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return false;
    }
  }
}

/**
 * Bodies up to MAX_BODY_BYTES reach the routes; larger ones get 413 `payload_too_large` once drained (up to
 * DRAIN_LIMIT_BYTES). Only POST/PUT/PATCH are guarded (wrapping every GET's stream cost 8 % of a status read), and
 * a declared Content-Length within the limit passes without buffering.
 */
export function bodyGuard(limitFor: (path: string) => number = () => MAX_BODY_BYTES): MiddlewareHandler<Env> {
  return async (c, next) => {
    const method = c.req.method;
    if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return next();
    // The dialects carry whole batches in one body: their prefixes have a larger limit (dialects/mount.ts).
    const max = limitFor(c.req.path);
    const drainLimit = Math.max(DRAIN_LIMIT_BYTES, max);
    const raw = c.req.raw;
    // Headers first: touching `raw.body` makes @hono/node-server build a web stream over the socket (10 % of a
    // create); left alone, the route's `c.req.text()` reads the socket directly.
    const declared = raw.headers.has('transfer-encoding') ? null : raw.headers.get('content-length');
    if (declared !== null) {
      const length = Number.parseInt(declared, 10);
      if (!(length > max)) return next();
      if (!raw.body) return next();
      if (length > drainLimit) return tooLarge(c, true, max);
      return tooLarge(c, !(await drain(raw.body.getReader(), 0, drainLimit)), max);
    }
    if (!raw.body) return next();
    // Chunked: buffer up to the limit for the route, then drain whatever is beyond it.
    const reader = raw.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > max) return tooLarge(c, !(await drain(reader, size, drainLimit)), max);
      chunks.push(value);
    }
    // An in-process request's signal is its caller's own (transports/in-process-request.ts): the rebuilt one keeps it.
    c.req.raw = keepCallerSignal(raw, new Request(raw, { body: Buffer.concat(chunks, size) }));
    return next();
  };
}
