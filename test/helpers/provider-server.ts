/**
 * Test helper: a fake provider served over real HTTP on loopback (port 0), and a small `call` helper around the
 * global `fetch`. Start it in beforeAll, stop it in afterAll.
 */
import type { Hono } from 'hono';
import { vi } from 'vitest';
import { createProvider, serve, type Provider, type ProviderOptions, type RunningServer } from '../../src/fake-provider/index.js';

export interface CallOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** Objects are sent as JSON; strings and bytes as they are. */
  body?: unknown;
  signal?: AbortSignal;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body when it is JSON, else undefined. */
  json: any;
}

export type Call = (method: string, path: string, opts?: CallOptions) => Promise<CallResult>;

export interface ProviderServer {
  provider: Provider;
  server: RunningServer;
  url: string;
  call: Call;
  /** The control API, with the control token. */
  control: Call;
  stop(): Promise<void>;
}

export function makeCall(base: string, doFetch: typeof fetch = globalThis.fetch, defaultToken: string | null = 'dev-token'): Call {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? defaultToken : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (opts.body !== undefined) {
      if (typeof opts.body === 'string' || opts.body instanceof Uint8Array) body = opts.body as BodyInit;
      else {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
    }
    const res = await doFetch(`${base}${path}`, { method, headers, body, signal: opts.signal });
    const text = await res.text();
    let json: any;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

/**
 * The tests' one way to serve a provider over HTTP: loopback, port 0. `front` puts another app in front of it (a
 * deliberately broken provider for verify-provider's tests).
 */
export async function startProviderServer(opts: ProviderOptions = {}, front?: (provider: Provider) => Hono<any>): Promise<ProviderServer> {
  const provider = createProvider(opts);
  const server = await serve(front ? { ...provider, app: front(provider) } : provider, { port: 0, host: '127.0.0.1' });
  const call = makeCall(server.url);
  const control = makeCall(server.url, globalThis.fetch, provider.tokens.control_token);
  return {
    provider,
    server,
    url: server.url,
    call,
    control,
    stop: async () => {
      await server.close();
      await provider.idle();
      provider.close();
    },
  };
}

/** A minimal valid create body. */
export function createBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: 'report', input: { account: 'acct_218', format: 'csv' }, ...extra };
}

/**
 * The tests' one wait: poll `fn` (real time) until it gives a truthy value and return that value; vitest's
 * `vi.waitUntil` fails the wait after `timeoutMs`. For observable state only (a key in flight, a journal entry).
 */
export function waitFor<T>(
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<T> {
  return vi.waitUntil(fn, { timeout: timeoutMs, interval: everyMs }) as Promise<T>;
}

/** Whether the provider holds `key` in flight (reserved, not yet answered) on `scope` for the principal of `token`. */
export function keyInFlight(provider: Provider, scope: string, key: string, token = 'dev-token'): boolean {
  const p = provider.tokens.tokens[token]!;
  return (
    provider.core.idempotency.lookup({ tenant: p.tenant, subject: p.subject, scope, key }, provider.clock.now())?.state === 'in_flight'
  );
}

let keySeq = 0;
/** A fresh idempotency key. */
export function newKey(prefix = 'k'): string {
  keySeq += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${keySeq}`;
}

/** RFC 9457 problem shape of provider-api.md; returns the parsed problem. */
export function problemOf(res: CallResult, status: number, code: string): Record<string, any> {
  const errors: string[] = [];
  if (res.status !== status) errors.push(`status ${res.status} != ${status} (${res.text.slice(0, 300)})`);
  const ct = res.headers.get('content-type') ?? '';
  if (!ct.startsWith('application/problem+json')) errors.push(`content-type ${ct}`);
  const p = res.json as Record<string, any> | undefined;
  if (!p || typeof p !== 'object') errors.push('body is not JSON');
  else {
    if (p.type !== `https://jobproof.dev/problems/${code}`) errors.push(`type ${p.type}`);
    if (typeof p.title !== 'string' || p.title === '') errors.push('title');
    if (p.status !== status) errors.push(`body status ${p.status}`);
    if (p.code !== code) errors.push(`code ${p.code} != ${code}`);
    if (typeof p.detail !== 'string') errors.push('detail');
    if (typeof p.request_id !== 'string' || !p.request_id.startsWith('req_')) errors.push(`request_id ${p.request_id}`);
    if (p.request_id !== res.headers.get('x-request-id')) errors.push('request_id != X-Request-ID');
  }
  if (errors.length) throw new Error(`not the expected problem ${status} ${code}: ${errors.join('; ')}`);
  return p!;
}

/** The journal's request entry for a response, by its X-Request-ID. */
export function journalEntryFor(provider: Provider, res: { headers: Headers }): import('../../src/contract/index.js').RequestEntry {
  const id = res.headers.get('x-request-id');
  const e = provider.journal.all().find((x) => x.type === 'request' && x.request_id === id);
  if (e?.type !== 'request') throw new Error(`no journal entry for request ${id}`);
  return e;
}
