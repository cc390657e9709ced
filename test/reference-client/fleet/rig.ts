import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { realClock } from '../../../src/lib/clock.js';
import { createProvider, serve, type Provider, type RunningServer } from '../../../src/fake-provider/index.js';
import type { RequestEntry } from '../../../src/contract/journal.js';
import { ReferenceClient } from '../../../src/reference-client/client.js';
import { PgOperationStore } from '../../../src/reference-client/store/pg-store.js';
import { schemaForState } from '../../../src/reference-client/store/pg-pool.js';
import { dropSchema } from '../../helpers/pg.js';
import { tempDir } from '../helpers.js';

/**
 * Worker processes on one PostgreSQL database, as machines in a fleet would run them: `client work` with
 * JOBPROOF_CLIENT_DB, one shared JOBPROOF_STATE (hence one schema), a provider over real loopback HTTP.
 */
const BIN = join(import.meta.dirname, '..', '..', '..', 'dist', 'reference-client', 'bin.js');

export type Proc = ChildProcess & { name: string; exited: Promise<number | null>; stderrText: string; done: boolean };

export interface Fleet {
  provider: Provider;
  server: RunningServer;
  store: PgOperationStore;
  submitter: ReferenceClient;
  requests(): RequestEntry[];
  worker(name: string): Proc;
  cleanup(): Promise<void>;
}

export async function fleet(url: string, leaseMs: number, providerOpts: Parameters<typeof createProvider>[0]): Promise<Fleet> {
  const provider = createProvider(providerOpts);
  const server = await serve(provider, { port: 0, host: '127.0.0.1' });
  const t = tempDir('jp-fleet-');
  const store = new PgOperationStore(url, schemaForState(t.dir));
  const submitter = new ReferenceClient(
    { fetch, clock: realClock, providerUrl: server.url, token: 'dev-token', workerId: 'submitter', leaseMs, state: t.dir },
    store,
  );
  const procs: Proc[] = [];
  return {
    provider,
    server,
    store,
    submitter,
    requests: () => provider.journal.all().filter((e): e is RequestEntry => e.type === 'request'),
    worker(name) {
      const child = spawn(process.execPath, [BIN, 'client', 'work'], {
        env: {
          ...process.env,
          JOBPROOF_CLIENT_DB: url,
          JOBPROOF_PROVIDER_URL: server.url,
          JOBPROOF_TOKEN: 'dev-token',
          JOBPROOF_STATE: t.dir,
          JOBPROOF_WORKER_ID: name,
          JOBPROOF_LEASE_MS: String(leaseMs),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      }) as Proc;
      child.name = name;
      child.stderrText = '';
      child.done = false;
      child.stderr!.on('data', (d: Buffer) => (child.stderrText += d.toString()));
      child.exited = new Promise((resolve) =>
        child.once('exit', (code, signal) => {
          child.done = true;
          resolve(code ?? (signal === 'SIGKILL' ? -9 : null));
        }),
      );
      procs.push(child);
      return child;
    },
    async cleanup() {
      for (const p of procs) if (!p.done) p.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      await submitter.close();
      await server.close();
      provider.close();
      await dropSchema(url, schemaForState(t.dir));
      t.cleanup();
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(pred: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await pred()) return true;
    await sleep(20);
  }
  return pred();
}

export function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const op = (id: string) => ({
  operation_id: id,
  kind: 'report',
  input: { id },
  create_deadline_ms: 60_000,
  result_deadline_ms: 180_000,
});
