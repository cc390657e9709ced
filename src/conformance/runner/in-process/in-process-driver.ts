import { existsSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createProvider,
  connectionReset,
  IN_PROCESS_BASE,
  inProcessRequest,
  type Provider,
  type StoreImage,
} from '../../../fake-provider/index.js';
import { VirtualClock } from '../../../lib/clock.js';
import { seededIds } from '../../../lib/ids.js';
import {
  ChangedRequestError,
  type CancelInput,
  type InProcessClient,
  type InProcessClientFactory,
  type OperationRecord,
  type SubmitInput,
} from '../../../contract/client-protocol.js';
import type { Profile } from '../../../contract/profiles.js';
import type { Scenario } from '../../../scenarios/index.js';
import type { ProviderJob } from '../../checker/evidence.js';
import type { RunDriver } from '../driver.js';
import { eitherSignal } from './either-signal.js';
import { FreezableClock } from './worker-clock.js';

export interface InProcessDriverOptions {
  factory: InProcessClientFactory;
  scenario: Scenario;
  /** An API profile the provider serves (the client speaks it: certify --in-process --profile). */
  profile?: Profile;
  seed?: number;
  token?: string;
}

interface Worker {
  client: InProcessClient;
  clock: FreezableClock;
  killed: boolean;
  done: boolean;
  abort: AbortController;
  /** Aborted when the worker is killed: a dead process's connections close under its requests in flight. */
  sockets: AbortController;
  run: Promise<void>;
}

const WEBHOOK_HOST = 'hooks.test';

/** Client and provider files of a virtual-clock run live in RAM where the OS offers it: thousands of runs, no disk. */
function scratchDir(): string {
  return process.env.JOBPROOF_SCRATCH ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
}

/** Runs a TypeScript client object against an in-process provider, everything on one virtual clock. */
export class InProcessDriver implements RunDriver {
  readonly mode = 'in-process' as const;
  readonly principal: { tenant: string; subject: string };
  private readonly clock = new VirtualClock();
  private readonly dir = mkdtempSync(join(scratchDir(), 'jobproof-run-'));
  private readonly token: string;
  private provider: Provider | null;
  private readonly workers = new Map<string, Worker>();
  private admin: InProcessClient | null = null;
  private readonly notes: string[] = [];

  constructor(private readonly o: InProcessDriverOptions) {
    this.token = o.token ?? 'dev-token';
    this.ids = seededIds(o.seed ?? 1);
    this.provider = this.openProvider(true);
    const p = this.provider.tokens.tokens[this.token];
    if (!p) throw new Error(`token ${this.token} is not configured`);
    this.principal = { tenant: p.tenant, subject: p.subject };
  }

  // One id sequence for the whole run: a restarted provider must not hand out ids it already gave.
  private readonly ids: ReturnType<typeof seededIds>;

  /** The first provider takes a pooled `:memory:` store; a restart opens the one its predecessor's close left (`image`). */
  private openProvider(first: boolean, image?: StoreImage): Provider {
    const s = this.o.scenario;
    return createProvider({
      db: ':memory:',
      ...(image ? { image } : {}),
      restartable: s.actions.some((a) => a.type === 'restart_provider'),
      clock: this.clock,
      ids: this.ids,
      ...(first ? { behavior: s.behavior, faults: s.faults } : {}),
      ...(this.o.profile ? { profiles: [this.o.profile] } : {}),
      // The dispatcher's signal (its delivery timeout) is the request's own, as for the workers' calls (no follower).
      webhookFetch: (input, init) => this.deliverWebhook(inProcessRequest(input, init, IN_PROCESS_BASE)),
      shortLived: true,
    });
  }

  private async deliverWebhook(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const w = url.hostname.endsWith(WEBHOOK_HOST) ? this.workers.get(url.hostname.slice(0, -WEBHOOK_HOST.length - 1)) : undefined;
    if (!w || w.killed || w.done || !w.client.handleWebhook) throw connectionReset();
    await w.clock.gate();
    return w.client.handleWebhook(req);
  }

  /** The worker's fetch: every request and every answer passes its freeze gate; nothing passes while the provider is down. */
  private fetchFor(clock: FreezableClock, sockets?: AbortSignal): typeof fetch {
    return async (input, init) => {
      await clock.gate();
      const provider = this.provider;
      if (!provider) throw connectionReset();
      // The provider sees a killed worker hang up, as a real server sees the socket close: an answer it was holding
      // is then journalled lost, not delivered (else a read held past its worker's kill would count as "told", I5).
      // The caller's signal is init's, else the Request's own: a client that hands fetch a Request (a middleware
      // wrapping each call) gives up through it, and `init.signal` replaces it below.
      const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
      const hangUp = sockets && own ? eitherSignal(own, sockets) : null;
      const signal = hangUp?.signal ?? sockets ?? own;
      try {
        // A failure is an answer too: a frozen or killed worker must not run on from it (its catch path) either.
        const res = await provider.fetch(input, { ...init, signal }).catch(async (err: unknown) => {
          await clock.gate();
          throw err;
        });
        await clock.gate();
        return res;
      } finally {
        hangUp?.release();
      }
    };
  }

  private async makeClient(workerId: string, clock: FreezableClock, sockets?: AbortSignal): Promise<InProcessClient> {
    return this.o.factory({
      fetch: this.fetchFor(clock, sockets),
      clock,
      providerUrl: IN_PROCESS_BASE,
      token: this.token,
      workerId,
      leaseMs: this.o.scenario.lease_ms,
      state: this.dir,
      webhook: this.o.scenario.webhooks
        ? {
            url: `http://${workerId}.${WEBHOOK_HOST}/`,
            secret: this.provider!.tokens.webhook_secrets[this.principal?.tenant ?? 'acme'] ?? '',
          }
        : undefined,
    });
  }

  private async adminClient(): Promise<InProcessClient> {
    this.admin ??= await this.makeClient('harness', new FreezableClock(this.clock));
    return this.admin;
  }

  now(): number {
    return this.clock.now();
  }

  async waitStep(until: number): Promise<void> {
    const next = this.clock.nextDue();
    await this.clock.advanceTo(Math.max(this.clock.now(), Math.min(next ?? until, until)));
  }

  async submit(op: SubmitInput): Promise<number> {
    try {
      await (await this.adminClient()).submit(op);
      return 0;
    } catch (err) {
      if (err instanceof ChangedRequestError) return 3;
      this.notes.push(`submit ${op.operation_id}: ${(err as Error).message}`);
      return 2;
    }
  }

  async cancel(operationId: string, intent: CancelInput): Promise<number> {
    try {
      await (await this.adminClient()).cancel(operationId, intent);
      return 0;
    } catch (err) {
      this.notes.push(`cancel ${operationId}: ${(err as Error).message}`);
      return 2;
    }
  }

  async show(operationId: string): Promise<OperationRecord | null> {
    try {
      return await (await this.adminClient()).show(operationId);
    } catch (err) {
      this.notes.push(`show ${operationId}: ${(err as Error).message}`);
      return null;
    }
  }

  async startWorker(workerId: string): Promise<void> {
    const clock = new FreezableClock(this.clock);
    const sockets = new AbortController();
    const client = await this.makeClient(workerId, clock, sockets.signal);
    const abort = new AbortController();
    const w: Worker = { client, clock, killed: false, done: false, abort, sockets, run: Promise.resolve() };
    w.run = client
      .work({ signal: abort.signal })
      .catch((err) => {
        if (!w.killed) this.notes.push(`${workerId}: work failed: ${(err as Error)?.stack ?? err}`);
      })
      .finally(() => {
        w.done = true;
      });
    this.workers.set(workerId, w);
  }

  async killWorker(workerId: string): Promise<void> {
    const w = this.workers.get(workerId);
    if (!w) return;
    // Frozen for ever: no timer fires, no request or answer passes, nothing is cleaned up.
    w.killed = true;
    w.clock.freeze();
    w.sockets.abort(new Error('worker killed'));
  }

  async pauseWorker(workerId: string): Promise<void> {
    this.workers.get(workerId)?.clock.freeze();
  }

  async resumeWorker(workerId: string): Promise<void> {
    const w = this.workers.get(workerId);
    if (w && !w.killed) w.clock.thaw();
  }

  liveWorkers(): string[] {
    return [...this.workers].filter(([, w]) => !w.killed && !w.done).map(([id]) => id);
  }

  async stopWorkers(): Promise<void> {
    for (const w of this.workers.values()) if (!w.killed && !w.done) w.abort.abort();
    // Aborted workers finish on the next timer turns.
    for (let i = 0; i < 20 && this.liveWorkers().length > 0; i++) await this.clock.advance(10);
  }

  async restartProvider(downMs: number): Promise<void> {
    if (this.provider) this.storeImage = this.provider.closeToImage();
    this.provider = null;
    await this.clock.advance(downMs);
    this.provider = this.openProvider(false, this.storeImage);
  }

  /** The store as the last provider's close left it (what a file would hold), for the next restart to open. */
  private storeImage?: StoreImage;

  journalSince(seq: number) {
    return this.provider ? this.provider.journal.since(seq) : [];
  }

  heldRequests(): number {
    return this.provider?.heldRequests() ?? 0;
  }

  heldBy(): string[] {
    return this.provider?.heldBy() ?? [];
  }

  providerJobs(): ProviderJob[] {
    const p = this.provider;
    if (!p) return [];
    // A profile's job keeps its request body, where the judge finds the harness's reference (link-profile.ts).
    if (!this.o.profile) return p.jobs();
    return p.jobs().map((j) => ({ ...j, input: p.core.jobs.get(j.job_id)?.input }));
  }

  diagnostics(): string[] {
    return this.notes;
  }

  async close(): Promise<void> {
    for (const w of this.workers.values()) {
      if (!w.killed) await w.client.close?.();
    }
    // Killed workers' stores are closed too: the process is gone, its file handles with it.
    for (const w of this.workers.values()) if (w.killed) await w.client.close?.();
    await this.admin?.close?.();
    this.provider?.close();
    removeDir(this.dir);
  }
}

/** Most runs leave their scratch directory empty (`:memory:` provider, in-memory client): a plain rmdir is enough. */
function removeDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}
