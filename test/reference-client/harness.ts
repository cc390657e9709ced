import { VirtualClock, type Clock } from '../../src/lib/clock.js';
import type { OperationStore } from '../../src/reference-client/store/operation-store.js';
import type { SubmitInput } from '../../src/contract/client-protocol.js';
import { createProvider, type Provider } from '../../src/fake-provider/index.js';
import type { BehaviorInput } from '../../src/contract/behavior.js';
import type { FaultPlanInput } from '../../src/contract/faults.js';
import type { RequestEntry } from '../../src/contract/journal.js';
import { ReferenceClient } from '../../src/reference-client/client.js';
import { drive, tempDir } from './helpers.js';

export const ACME_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export interface Bench {
  clock: VirtualClock;
  provider: Provider;
  dir: string;
  client(workerId?: string, over?: { leaseMs?: number; fetch?: typeof fetch; clock?: Clock; store?: OperationStore }): ReferenceClient;
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
      const c = new ReferenceClient(
        {
          fetch: over.fetch ?? provider.fetch,
          clock: over.clock ?? clock,
          providerUrl: 'http://jobproof.test',
          token: 'dev-token',
          workerId,
          leaseMs: over.leaseMs ?? opts.leaseMs ?? 5000,
          state: t.dir,
          webhook: opts.webhooks ? { url: `http://hooks.test/${workerId}`, secret: ACME_SECRET } : undefined,
        },
        over.store,
      );
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
      // SQLite closes synchronously inside close(); nothing to wait for before the directory goes.
      for (const c of clients) void c.close();
      provider.close();
      t.cleanup();
    },
  };
}

export function op(id: string, over: Partial<SubmitInput> = {}): SubmitInput {
  return {
    operation_id: id,
    kind: 'report',
    input: { account: 'acct_1', n: id },
    create_deadline_ms: 60_000,
    result_deadline_ms: 600_000,
    ...over,
  };
}

/** Jobs the provider created for an operation, counted from the journal (I1). */
export function jobsCreatedFor(b: Bench, operationId: string): string[] {
  return b
    .requests()
    .filter((e) => e.route === 'create' && e.effect === 'created' && e.client_ref === operationId)
    .map((e) => e.job_id!);
}

/** A store that dies on demand: after `crash()` every call throws, as if the process had been SIGKILLed. */
export function crashable(inner: OperationStore): OperationStore & { crash(): void } {
  let dead = false;
  return new Proxy(inner as OperationStore & { crash(): void }, {
    get(target, prop, receiver) {
      if (prop === 'crash') return () => (dead = true);
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (dead && prop !== 'close') return Promise.reject(new Error('process was killed'));
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * SIGSTOP for an in-process worker: while paused, its timers do not fire and answers do not reach it; on resume,
 * everything overdue happens at once (like a process that wakes up and finds time has moved on).
 */
export class Pausable {
  private paused = false;
  private queued: (() => void)[] = [];
  private readonly cleared = new Set<number>();
  readonly clock: Clock;

  constructor(inner: Clock) {
    const self = this;
    this.clock = {
      now: () => inner.now(),
      setTimeout(fn, ms) {
        const h = inner.setTimeout(() => {
          if (self.paused) self.queued.push(() => !self.cleared.has(h.id) && fn());
          else fn();
        }, ms);
        return h;
      },
      clearTimeout(h) {
        self.cleared.add(h.id);
        inner.clearTimeout(h);
      },
      sleep(ms, signal) {
        return new Promise<void>((resolve, reject) => {
          if (signal?.aborted) return reject(signal.reason);
          const h = this.setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          }, ms);
          const onAbort = () => {
            this.clearTimeout(h);
            reject(signal!.reason);
          };
          signal?.addEventListener('abort', onAbort, { once: true });
        });
      },
    };
  }

  private waiters: (() => void)[] = [];
  async gate(): Promise<void> {
    while (this.paused) await new Promise<void>((r) => this.waiters.push(r));
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    const q = this.queued;
    this.queued = [];
    for (const fn of q) fn();
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }

  /** A fetch whose answers wait while paused. `beforeAnswer` may pause it just as an answer arrives. */
  fetch(inner: typeof fetch, beforeAnswer?: (url: string, res: Response) => void): typeof fetch {
    return (async (input: RequestInfo | URL, init?: RequestInit) => {
      await this.gate();
      const res = await inner(input, init);
      beforeAnswer?.(String(input), res);
      await this.gate();
      return res;
    }) as typeof fetch;
  }
}
