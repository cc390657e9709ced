import type { Clock } from '../lib/clock.js';
import type { WireAuth } from './wire/traits.js';
import { nextDelay, parseRetryAfter, RETRY_POLICY } from './backoff.js';

/**
 * One provider call, with the headers every request must carry and a deadline driven by the injected clock: a hung
 * answer is given up on (and the caller learns it was ambiguous), never waited on for ever.
 */
export type Route = 'create' | 'status' | 'list' | 'cancel' | 'results';

/** One request, whichever API it is for (jobs here, tasks in tasks/http.ts). */
export interface RequestSpec {
  /** GET and POST for the built-in APIs; a profile's routes may take the others. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  idempotencyKey?: string;
  traceId: string;
  /** The fencing token of the lease the request is sent under: `X-Lease-Token` (client-protocol.md). */
  leaseToken?: number;
  /** Overrides the default timeout for this request. */
  timeoutMs?: number;
  /** A multipart body (a dialect's file upload) instead of JSON. */
  form?: FormData;
  /** Headers a dialect needs besides the common ones (e.g. `anthropic-version`). */
  headers?: Record<string, string>;
}

/** A jobs API request, named by its route (deadlines and the audit trail go by it). */
export interface CallSpec extends RequestSpec {
  route: Route;
}

export interface Answer {
  kind: 'answer';
  status: number;
  headers: Headers;
  body: Uint8Array;
  json: unknown;
  requestId: string | null;
  retryAfterMs: number | null;
}
/** No answer: the request may or may not have executed. */
export interface NoAnswer {
  kind: 'no_answer';
  reason: 'timeout' | 'network' | 'aborted';
  detail: string;
}
export type CallOutcome = Answer | NoAnswer;

export interface HttpOptions {
  fetch: typeof fetch;
  clock: Clock;
  providerUrl: string;
  token: string;
  workerId: string;
  timeoutMs: number;
  /** How the token travels (wire/traits.ts): bearer (the default), an API-key header (Anthropic, profiles) or not at all. */
  auth?: WireAuth;
}

/** One decoder for every answer: a whole-buffer decode keeps no state between calls. */
const UTF8 = new TextDecoder();

export async function call(opts: HttpOptions, spec: RequestSpec, signal?: AbortSignal): Promise<CallOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = opts.clock.setTimeout(() => {
    timedOut = true;
    controller.abort(new Error('request timed out'));
  }, spec.timeoutMs ?? opts.timeoutMs);
  const onOuterAbort = () => controller.abort(new Error('worker stopping'));
  signal?.addEventListener('abort', onOuterAbort, { once: true });
  // The transport may ignore the signal (an in-process fake that holds the answer); the race makes sure we don't.
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const headers: Record<string, string> = {
      ...spec.headers,
      ...authHeader(opts),
      'x-trace-id': spec.traceId,
      'x-worker-id': opts.workerId,
      accept: 'application/json, application/x-ndjson, application/problem+json',
    };
    if (spec.idempotencyKey) headers['idempotency-key'] = spec.idempotencyKey;
    if (spec.leaseToken !== undefined) headers['x-lease-token'] = String(spec.leaseToken);
    let body: string | FormData | undefined;
    if (spec.form) body = spec.form;
    else if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const url = new URL(spec.path, opts.providerUrl).toString();
    const res = await Promise.race([opts.fetch(url, { method: spec.method, headers, body, signal: controller.signal }), aborted]);
    const bytes = new Uint8Array(await Promise.race([res.arrayBuffer(), aborted]));
    let json: unknown = null;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json') && !type.includes('ndjson')) {
      try {
        json = JSON.parse(UTF8.decode(bytes));
      } catch {
        json = null;
      }
    }
    return {
      kind: 'answer',
      status: res.status,
      headers: res.headers,
      body: bytes,
      json,
      requestId: res.headers.get('x-request-id'),
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), opts.clock.now()),
    };
  } catch (err) {
    const reason = timedOut ? 'timeout' : signal?.aborted ? 'aborted' : 'network';
    return { kind: 'no_answer', reason, detail: err instanceof Error ? err.message : String(err) };
  } finally {
    opts.clock.clearTimeout(timer);
    signal?.removeEventListener('abort', onOuterAbort);
  }
}

function authHeader(opts: HttpOptions): Record<string, string> {
  const a = opts.auth ?? 'bearer';
  if (a === 'none') return {};
  if (a === 'bearer') return { authorization: `Bearer ${opts.token}` };
  return { [a.header.toLowerCase()]: a.scheme ? `${a.scheme} ${opts.token}` : opts.token };
}

/** An answer that says nothing about whether the request executed: 5xx, or no answer at all. */
export function isAmbiguous(o: CallOutcome): boolean {
  return o.kind === 'no_answer' || o.status >= 500;
}

export function problemCode(o: CallOutcome): string | null {
  if (o.kind !== 'answer' || !o.json || typeof o.json !== 'object') return null;
  const code = (o.json as { code?: unknown }).code;
  return typeof code === 'string' ? code : null;
}

export function summarize(o: CallOutcome): { status: number | null; request_id: string | null; detail: string | null } {
  return o.kind === 'answer'
    ? { status: o.status, request_id: o.requestId, detail: problemCode(o) }
    : { status: null, request_id: null, detail: `${o.reason}: ${o.detail}` };
}

/**
 * How long to wait before trying again after a request that taught us nothing: the retry backoff, never under the
 * provider's Retry-After — except after a timeout, which has already waited as long as any backoff would. Backing
 * off on top of a hung read can leave a job that ended mid-read unread until past its deadline (I3); the timeouts themselves shrink towards the deadline (deadlines.ts), so this does not make reads pile up.
 */
export function retryDelay(o: CallOutcome, attempt: number, seed: string): number {
  if (o.kind === 'no_answer' && o.reason === 'timeout') return 0;
  return nextDelay(RETRY_POLICY, attempt, seed, o.kind === 'answer' ? o.retryAfterMs : null);
}
