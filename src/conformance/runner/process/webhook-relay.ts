import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * The load balancer in front of a project's webhook endpoint (an API whose webhooks are configured per project, not
 * per job: OpenAI). One loopback port per run, the endpoint the provider sends the run tenant's events to; each
 * delivery goes, unchanged (method, path, headers, body), to one live worker's webhook port, in turn. A worker that
 * does not take the connection (killed, not yet listening) is passed over for the next; the worker's answer — status
 * and body — goes back to the provider as it is, so a refusal (401 on a bad signature, 503) is the worker's own. With
 * no worker to take it the delivery fails (502) and the provider retries it, as it would behind a real balancer.
 */
export class WebhookRelay {
  private next = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly targets: () => number[],
  ) {}

  /** `targets`: the webhook ports of the workers that may take a delivery now, asked afresh for every delivery. */
  static async start(targets: () => number[]): Promise<WebhookRelay> {
    let relay: WebhookRelay | null = null;
    const server = createServer((req, res) => relay?.relay(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as { port: number };
    relay = new WebhookRelay(server, `http://127.0.0.1:${port}/`, targets);
    return relay;
  }

  private relay(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void this.forward(req, Buffer.concat(chunks), res));
  }

  private async forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const ports = this.targets();
    // Round robin over the workers of now: each delivery starts one further along, whatever the set became.
    const start = this.next++;
    for (let i = 0; i < ports.length; i++) {
      const port = ports[(start + i) % ports.length]!;
      const answer = await this.send(port, req, body, res);
      if (answer === 'answered' || answer === 'gone') return;
    }
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('no worker took the delivery');
  }

  /**
   * One attempt at one worker: `refused` when the connection failed before any answer (try the next worker),
   * `answered` once its answer was passed back, `gone` when the provider hung up first (its own timeout).
   */
  private send(port: number, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<'answered' | 'refused' | 'gone'> {
    return new Promise((resolve) => {
      const headers = { ...req.headers, host: `127.0.0.1:${port}`, 'content-length': String(body.length) };
      const out = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          if (res.destroyed) return resolve('gone');
          const type = answer.headers['content-type'];
          res.writeHead(answer.statusCode ?? 502, type ? { 'content-type': type } : {}).end(Buffer.concat(chunks));
          resolve('answered');
        });
        answer.on('error', () => resolve(res.destroyed ? 'gone' : 'refused'));
      });
      // The provider gave up on this delivery (its timeout): the worker's connection goes with it.
      const hangUp = () => {
        if (!res.writableFinished) out.destroy();
      };
      res.once('close', hangUp);
      out.on('error', () => {
        res.off('close', hangUp);
        resolve(res.destroyed ? 'gone' : 'refused');
      });
      out.end(body);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
