import type { MiddlewareHandler } from 'hono';
import type { Env } from '../http/context.js';

/** What the journal does not keep: the headers and bodies of one exchange, for "view full" and "copy as curl". */
export interface Exchange {
  request_id: string;
  method: string;
  url: string;
  request_headers: Array<[string, string]>;
  request_body: string;
  status: number;
  response_headers: Array<[string, string]>;
  response_body: string;
}

/** Bodies beyond this are cut (the provider refuses request bodies over 1 MiB anyway). */
const MAX_BODY = 256 * 1024;
const INTERNAL = /^x-jobproof-/i;

/**
 * A bounded ring of recent exchanges. It records only while someone watches the dashboard (a page or the live stream
 * was requested within `watchWindowMs`): when nobody does, the cost on every request is one comparison.
 */
export class ExchangeLog {
  private readonly byId = new Map<string, Exchange>();
  private watchedUntil = 0;

  constructor(
    private readonly capacity = 2_000,
    private readonly watchWindowMs = 10 * 60_000,
  ) {}

  /** A dashboard request arrived: record exchanges for the next while. */
  touch(now = Date.now()): void {
    this.watchedUntil = now + this.watchWindowMs;
  }

  /** Held open by a live stream until it closes. */
  hold(): () => void {
    this.watchedUntil = Number.POSITIVE_INFINITY;
    return () => this.touch();
  }

  recording(now = Date.now()): boolean {
    return now < this.watchedUntil;
  }

  get(requestId: string): Exchange | undefined {
    return this.byId.get(requestId);
  }

  put(x: Exchange): void {
    this.byId.set(x.request_id, x);
    if (this.byId.size > this.capacity) this.byId.delete(this.byId.keys().next().value!);
  }

  clear(): void {
    this.byId.clear();
  }

  /** Runs outside the journal's middleware, so the request id and the final answer are both known after next(). */
  middleware(): MiddlewareHandler<Env> {
    return async (c, next) => {
      if (!this.recording()) return next();
      const path = c.req.path;
      if (path.startsWith('/_dashboard') || path.startsWith('/_control')) return next();
      const hasBody = c.req.method !== 'GET' && c.req.method !== 'HEAD';
      await next();
      const requestId = c.get('requestId');
      if (!requestId) return;
      // Hono caches a body a handler read; one nobody read (an early 401) is read here.
      const requestBody = hasBody ? await c.req.text().catch(() => '') : '';
      let res = c.res;
      let responseBody = '';
      if (res.body) {
        // Read once and answer with a fresh Response over the same text: Response.clone() tees the stream, which cost
        // 4× more per request than this (bench: 540 vs 195 µs on a loaded machine).
        responseBody = await res.text().catch(() => '');
        res = new Response(responseBody, res);
        // Hono's setter would copy the old answer's headers onto yet another Response; clearing it first skips that.
        c.res = undefined as unknown as Response;
        c.res = res;
      }
      this.put({
        request_id: requestId,
        method: c.req.method,
        url: c.req.url,
        request_headers: pairs(c.req.raw.headers),
        request_body: requestBody.slice(0, MAX_BODY),
        status: res.status,
        response_headers: pairs(res.headers).filter(([k]) => !INTERNAL.test(k)),
        response_body: responseBody.slice(0, MAX_BODY),
      });
    };
  }
}

function pairs(h: Headers): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  h.forEach((v, k) => {
    out.push([k, v]);
  });
  return out;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The request as a curl command a person can paste (hop-by-hop headers left out). */
export function curlOf(x: Pick<Exchange, 'method' | 'url' | 'request_headers' | 'request_body'>): string {
  const skip = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent']);
  const parts = ['curl', '-i', '-X', x.method, shellQuote(x.url)];
  for (const [k, v] of x.request_headers) if (!skip.has(k.toLowerCase())) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (x.request_body) parts.push('--data-raw', shellQuote(x.request_body));
  return parts.join(' ');
}
