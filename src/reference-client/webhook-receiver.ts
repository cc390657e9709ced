import type { Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * Webhooks only ever make the client look sooner: a verified, first-seen event asks for an immediate status read of
 * its job. It never moves a state — events arrive twice, late, out of order or not at all.
 */
const SEEN_LIMIT = 10_000;

export interface WebhookTarget {
  /** A verified event for this job id arrived. */
  onEvent(jobId: string, eventId: string, type: string): unknown;
}

export class WebhookReceiver {
  private readonly verifier: Webhook;
  private readonly seen = new Set<string>();

  /** `jobIdAt`: where the API's events name their job (the wire's `webhookJobId`). */
  constructor(
    secret: string,
    private readonly target: WebhookTarget,
    private readonly jobIdAt: readonly string[],
  ) {
    // Freshness is checked by the library against the wall clock, on purpose: the provider stamps deliveries with
    // wall-clock time even on a virtual clock (a transport stamp, not job time), so this is the one place the client
    // reads real time.
    this.verifier = new Webhook(secret);
  }

  async handle(request: Request): Promise<Response> {
    const body = await request.text();
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    let payload: unknown;
    try {
      payload = this.verifier.verify(body, headers);
    } catch {
      return new Response('invalid signature', { status: 401 });
    }
    const eventId = headers['webhook-id']!;
    if (this.seen.has(eventId)) return new Response(null, { status: 204 });
    this.remember(eventId);
    const event = payload as { type?: unknown };
    const type = typeof event.type === 'string' ? event.type : '';
    const named = this.jobIdAt.reduce<unknown>(
      (at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
      payload,
    );
    const jobId = typeof named === 'string' ? named : null;
    // Progress is never trusted for anything, so it is not worth a read either.
    if (jobId && type !== 'job.progress') {
      try {
        await this.target.onEvent(jobId, eventId, type);
      } catch {
        // The store could not take it (database restarting): let the provider deliver it again.
        this.seen.delete(eventId);
        return new Response('store unavailable', { status: 503 });
      }
    }
    return new Response(null, { status: 204 });
  }

  private remember(id: string): void {
    this.seen.add(id);
    if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value!);
  }
}

/** The process form: a tiny listener on 127.0.0.1:port that feeds the receiver. */
export async function listenWebhooks(handle: (request: Request) => Promise<Response>, port: number): Promise<Server> {
  // Loaded here, by the one `work` that listens: every other client start would pay for node:http for nothing.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const request = new Request(`http://127.0.0.1:${port}${req.url ?? '/'}`, {
        method: req.method,
        headers,
        body: Buffer.concat(chunks),
      });
      handle(request)
        .then(async (r) => {
          res.writeHead(r.status);
          res.end(Buffer.from(await r.arrayBuffer()));
        })
        .catch(() => {
          res.writeHead(500);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
