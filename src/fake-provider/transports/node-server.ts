import { serve as honoServe, type HttpBindings } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server } from 'node:http';
import { drain, DRAIN_LIMIT_BYTES } from '../http/body-guard.js';
import { lossOf } from '../http/answer.js';
import type { Provider } from '../provider.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  /**
   * How long an idle keep-alive connection stays open (Node's default: 5 s). The conformance harness raises it: a
   * client paused (SIGSTOP) for longer would otherwise resume onto connections closed under it, a fault no scenario
   * asked for.
   */
  keepAliveTimeoutMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

/**
 * Node's parser lets through request targets that @hono/node-server's URL check refuses with a bare 400 (no problem
 * body, no X-Request-ID, no journal entry): a backslash in the path, a target not starting with '/', a malformed Host.
 * Make them well-formed, so the app answers and journals them like any other unknown path.
 */
function sanitizeTarget(incoming: IncomingMessage, host: string): void {
  let url = incoming.url ?? '/';
  // Nearly every target is already well-formed (starts with '/', no backslash): leave it as it is.
  if (incoming.url === undefined || url.charCodeAt(0) !== 47 || url.includes('\\')) {
    if (/^https?:\/\//i.test(url)) url = url.replace(/^https?:\/\/[^/?]*/i, '');
    if (!url.startsWith('/')) url = `/${url}`;
    const q = url.indexOf('?');
    incoming.url = q === -1 ? url.replace(/\\/g, '%5C') : url.slice(0, q).replace(/\\/g, '%5C') + url.slice(q);
  }
  const h = incoming.headers.host;
  if (h !== undefined && !/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(h)) incoming.headers.host = host;
}

/** Read what the app left of a request body, up to the drain bound; false when it cannot or the bound is passed. */
async function drainUnread(req: Request): Promise<boolean> {
  if (!req.body || req.bodyUsed || req.body.locked) return false;
  // A declared length past the bound is not waited for at all.
  if (Number(req.headers.get('content-length') ?? 0) > DRAIN_LIMIT_BYTES) return false;
  return drain(req.body.getReader(), 0, DRAIN_LIMIT_BYTES);
}

/** Serve a provider over real HTTP. Lost answers become real socket resets or sockets held open. */
export function serve(provider: Provider, opts: ServeOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = honoServe(
      {
        port: opts.port ?? 4010,
        hostname: host,
        fetch: async (req: Request, bindings) => {
          const env = bindings as HttpBindings;
          const res = await provider.app.fetch(req, env);
          // Group commit: the answer leaves only once its writes and journal entry are committed, so a crash cannot
          // lose anything a client saw (store/group-commit.ts, docs/decisions/014-group-commit.md).
          await provider.journal.committed();
          const loss = lossOf(res);
          if (!loss) {
            // Answered before the request body arrived in full (an early 401, 404, 429…): read and discard the rest
            // (bounded) first, so a client that writes its whole body before reading (Python's http.client) reads
            // the answer instead of a broken pipe. Past the bound, or if the app stopped reading, close instead: the
            // unread rest would break the next request on this keep-alive connection.
            if (!env.incoming.complete && !(await drainUnread(req))) res.headers.set('connection', 'close');
            return res;
          }
          const socket = env.incoming.socket;
          if (loss === 'reset') {
            socket.resetAndDestroy?.() ?? socket.destroy();
          } else {
            // Held open until the client gives up (closes) or the server stops.
            await new Promise<void>((r) => (socket.destroyed ? r() : socket.once('close', () => r())));
          }
          return new Response(null, { status: 204 });
        },
      },
      (info: AddressInfo) => {
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`;
        resolve({
          url,
          port: info.port,
          host,
          close: () =>
            new Promise<void>((done) => {
              (server as Server).closeAllConnections?.();
              server.close(() => done());
            }),
        });
      },
    ) as Server;
    if (opts.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = opts.keepAliveTimeoutMs;
    server.prependListener('request', (incoming: IncomingMessage) => sanitizeTarget(incoming, host));
    server.once('error', reject);
  });
}
