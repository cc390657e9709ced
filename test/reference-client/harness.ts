import { VirtualClock } from '../../src/lib/clock.js';
import type { SubmitInput } from '../../src/lib/client-protocol.js';
import { createProvider, type Provider } from '../../src/fake-provider/index.js';
import type { BehaviorInput } from '../../src/fake-provider/model/behavior.js';
import type { FaultPlanInput } from '../../src/fake-provider/model/faults.js';
import type { RequestEntry } from '../../src/fake-provider/model/journal.js';
import { ReferenceClient } from '../../src/reference-client/client.js';
import { drive, tempDir } from './helpers.js';

export const ACME_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export interface Bench {
  clock: VirtualClock;
  provider: Provider;
  dir: string;
  client(workerId?: string, over?: { leaseMs?: number; fetch?: typeof fetch }): ReferenceClient;
  /** Run one worker until every operation is final. */
  work(c: ReferenceClient, maxVirtualMs?: number): Promise<void>;
  requests(): RequestEntry[];
  close(): void;
}

/** A provider and any number of reference clients over one state directory, all on one virtual clock. */
export function bench(opts: { behavior?: BehaviorInput; faults?: FaultPlanInput; webhooks?: boolean; leaseMs?: number } = {}): Bench {
  const clock = new VirtualClock();
  const t = tempDir();
  const clients: ReferenceClient[] = [];
  const hookTarget: { c: ReferenceClient | null } = { c: null };
  const provider = createProvider({
    clock,
    behavior: opts.behavior ? { default: opts.behavior as never } : undefined,
    faults: opts.faults,
    webhookFetch: opts.webhooks
      ? async (input, init) => {
          if (!hookTarget.c) throw new TypeError('fetch failed');
          return hookTarget.c.handleWebhook(new Request(input as string, init));
        }
      : undefined,
  });
  return {
    clock,
    provider,
    dir: t.dir,
    client(workerId = 'worker-1', over = {}) {
      const c = new ReferenceClient({
        fetch: over.fetch ?? provider.fetch,
        clock,
        providerUrl: 'http://jobproof.test',
        token: 'dev-token',
        workerId,
        leaseMs: over.leaseMs ?? opts.leaseMs ?? 5000,
        state: t.dir,
        webhook: opts.webhooks ? { url: `http://hooks.test/${workerId}`, secret: ACME_SECRET } : undefined,
      });
      clients.push(c);
      hookTarget.c ??= c;
      return c;
    },
    work(c, maxVirtualMs) {
      return drive(clock, c.work({ signal: new AbortController().signal }), maxVirtualMs);
    },
    requests() {
      return provider.journal.all().filter((e): e is RequestEntry => e.type === 'request');
    },
    close() {
      for (const c of clients) c.close();
      provider.close();
      t.cleanup();
    },
  };
}

export function op(id: string, over: Partial<SubmitInput> = {}): SubmitInput {
  return { operation_id: id, kind: 'report', input: { account: 'acct_1', n: id }, create_deadline_ms: 60_000, result_deadline_ms: 600_000, ...over };
}

/** Jobs the provider created for an operation, counted from the journal (I1). */
export function jobsCreatedFor(b: Bench, operationId: string): string[] {
  return b.requests().filter((e) => e.route === 'create' && e.effect === 'created' && e.client_ref === operationId).map((e) => e.job_id!);
}
