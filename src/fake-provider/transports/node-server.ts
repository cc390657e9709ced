import { serve as honoServe, type HttpBindings } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { LOSS_HEADER } from '../http/context.js';
import type { Provider } from '../provider.js';

export interface ServeOptions {
  port?: number;
  host?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
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
          const loss = res.headers.get(LOSS_HEADER);
          if (!loss) return res;
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
    server.once('error', reject);
  });
}
