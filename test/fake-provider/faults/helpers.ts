import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { settle, VirtualClock } from '../../../src/lib/clock.js';
import { createProvider, type Provider, type ProviderOptions } from '../../../src/fake-provider/index.js';
import type { FaultPlanInput, JournalEntry, RequestEntry, WebhookEntry } from '../../../src/contract/index.js';

export const TOKEN = 'dev-token';
export const CONTROL = 'control-token';
export const IN_PROCESS = 'http://jobproof.test';

export const REPORT = { kind: 'report', input: { account: 'acct_218', range: { start: '2025-02-01', end: '2025-02-28' }, format: 'csv' } };

export function createBody(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...REPORT, ...extra });
}

export function createInit(key: string, extra: Record<string, unknown> = {}, init: RequestInit = {}): RequestInit {
  return {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: createBody(extra),
    ...init,
  };
}

export function getInit(init: RequestInit = {}): RequestInit {
  return { headers: { authorization: `Bearer ${TOKEN}` }, ...init };
}

export function controlInit(method: string, body?: unknown): RequestInit {
  return {
    method,
    headers: { authorization: `Bearer ${CONTROL}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  };
}

export function requests(journal: JournalEntry[]): RequestEntry[] {
  return journal.filter((e): e is RequestEntry => e.type === 'request');
}

export function webhookEntries(journal: JournalEntry[]): WebhookEntry[] {
  return journal.filter((e): e is WebhookEntry => e.type === 'webhook');
}

export function createdJobIds(journal: JournalEntry[]): string[] {
  return requests(journal)
    .filter((e) => e.effect === 'created')
    .map((e) => e.job_id!);
}

/** Settle a promise into a tagged outcome, so a test can look at a rejection without try/catch. */
export async function outcome<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Track whether a promise has settled yet, without awaiting it. */
export function track<T>(p: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  const promise = p.finally(() => {
    done = true;
  });
  promise.catch(() => undefined);
  return { promise, settled: () => done };
}

/** A provider on a fresh VirtualClock, closed by the caller. */
export function virtualProvider(opts: ProviderOptions = {}): { provider: Provider; clock: VirtualClock } {
  const clock = new VirtualClock();
  const provider = createProvider({ behavior: { default: { duration_ms: 1000 } }, ...opts, clock });
  return { provider, clock };
}

export async function installFaults(provider: Provider, plan: FaultPlanInput): Promise<void> {
  const res = await provider.fetch('/_control/faults', controlInit('PUT', plan));
  if (res.status !== 200) throw new Error(`installing faults failed: ${res.status} ${await res.text()}`);
}

export interface ReceivedWebhook {
  id: string;
  type: string;
  job_id: string;
  at: number;
  headers: Record<string, string>;
}

/** A real node:http webhook receiver on port 0 that records every POST it gets, in arrival order. */
export async function startReceiver(): Promise<{ url: string; received: ReceivedWebhook[]; close(): Promise<void> }> {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; type: string; data: { job_id: string } };
      received.push({
        id: String(req.headers['webhook-id']),
        type: body.type,
        job_id: body.data.job_id,
        at: Date.now(),
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A `webhookFetch` that hands each delivery to an in-process handler, recording it with the virtual time. */
export function inProcessReceiver(clock: VirtualClock): { fetch: typeof fetch; received: ReceivedWebhook[] } {
  const received: ReceivedWebhook[] = [];
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const body = (await req.json()) as { type: string; data: { job_id: string } };
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => {
      headers[k] = v;
    });
    received.push({
      id: req.headers.get('webhook-id')!,
      type: body.type,
      job_id: body.data.job_id,
      at: clock.now(),
      headers,
    });
    return new Response(null, { status: 204 });
  }) as typeof fetch;
  return { fetch: f, received };
}

export { settle };
