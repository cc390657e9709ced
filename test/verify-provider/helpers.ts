import type { Hono } from 'hono';
import type { Provider, ProviderOptions, RunningServer } from '../../src/fake-provider/index.js';
import { startProviderServer } from '../helpers/provider-server.js';
import type { VerifyOptions } from '../../src/verify-provider/index.js';

export interface Served {
  provider: Provider;
  server: RunningServer;
  opts: VerifyOptions;
  stop(): Promise<void>;
}

/** Serve a provider over real HTTP on port 0 (the shared fixture), optionally behind a wrapper app (a deliberately broken provider). */
export async function serveProvider(wrap?: (provider: Provider) => Hono<any>, options: ProviderOptions = {}): Promise<Served> {
  const ps = await startProviderServer(options, wrap);
  return {
    provider: ps.provider,
    server: ps.server,
    opts: {
      url: ps.url,
      token: 'dev-token',
      token2: 'dev-token-2',
      otherTenantToken: 'other-tenant-token',
      reviewerToken: 'reviewer-token',
      controlToken: 'control-token',
      waitMs: 8_000,
    },
    stop: ps.stop,
  };
}
