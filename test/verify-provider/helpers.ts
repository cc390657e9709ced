import type { Hono } from 'hono';
import { createProvider, serve, type Provider, type ProviderOptions, type RunningServer } from '../../src/fake-provider/index.js';
import type { VerifyOptions } from '../../src/verify-provider/index.js';

export interface Served {
  provider: Provider;
  server: RunningServer;
  opts: VerifyOptions;
  stop(): Promise<void>;
}

/** Serve a provider over real HTTP on port 0, optionally behind a wrapper app (a deliberately broken provider). */
export async function serveProvider(wrap?: (provider: Provider) => Hono<any>, options: ProviderOptions = {}): Promise<Served> {
  const provider = createProvider(options);
  const front = wrap ? { ...provider, app: wrap(provider) } : provider;
  const server = await serve(front as Provider, { port: 0, host: '127.0.0.1' });
  return {
    provider,
    server,
    opts: {
      url: server.url, token: 'dev-token', token2: 'dev-token-2', otherTenantToken: 'other-tenant-token', reviewerToken: 'reviewer-token',
      controlToken: 'control-token', waitMs: 8_000,
    },
    stop: async () => {
      await server.close();
      await provider.idle();
      provider.close();
    },
  };
}
