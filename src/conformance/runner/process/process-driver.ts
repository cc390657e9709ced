import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProvider, serve, type Provider, type RunningServer } from '../../../fake-provider/index.js';
import type { CancelInput, OperationRecord, SubmitInput } from '../../../contract/client-protocol.js';
import type { Scenario } from '../../../scenarios/index.js';
import type { ProviderJob } from '../../checker/evidence.js';
import type { RunDriver } from '../driver.js';
import { freePort } from './free-port.js';
import { readShowOutput } from './record-problem.js';
import type { ClientDialect } from '../../dialect/batch-input.js';
import type { ProfileTarget } from '../../dialect/profile-input.js';
import { callClient, spawnClient } from './spawn-client.js';
import { openRunProject, projectWebhooks } from './run-project.js';
import type { WebhookRelay } from './webhook-relay.js';

export interface ProcessDriverOptions {
  command: string;
  scenario: Scenario;
  token?: string;
  /** Real-time step of the executor loop. */
  tickMs?: number;
  /** JOBPROOF_DIALECT of every client process (spec/dialects.md); default native. */
  dialect?: ClientDialect;
  /** The API profile the provider serves and every client process speaks (profiles.md); overrides `dialect`. */
  profile?: ProfileTarget;
}

interface Worker {
  child: ChildProcess;
  exited: boolean;
  killed: boolean;
  paused: boolean;
  stderr: string[];
  webhookPort: number | undefined;
}

const KEEP_ALIVE_MS = 10 * 60_000;

/** Runs a client command as real processes against the provider over HTTP on an ephemeral loopback port. */
export class ProcessDriver implements RunDriver {
  readonly mode = 'process' as const;
  readonly principal: { tenant: string; subject: string };
  private readonly dir = mkdtempSync(join(tmpdir(), 'jobproof-certify-'));
  private readonly stateDir = join(this.dir, 'client-state');
  private readonly dbPath = join(this.dir, 'provider.db');
  private token: string;
  /** The run's own project endpoint, where the API's webhooks are configured per project (run-project.ts). */
  private relay: WebhookRelay | null = null;
  private provider: Provider | null = null;
  private server: RunningServer | null = null;
  private port = 0;
  private readonly workers = new Map<string, Worker>();
  private readonly notes: string[] = [];
  private readonly unreadable = new Map<string, string>();

  private constructor(private readonly o: ProcessDriverOptions) {
    this.token = o.token ?? 'dev-token';
    mkdirSync(this.stateDir, { recursive: true });
    this.principal = { tenant: '', subject: '' };
  }

  static async start(o: ProcessDriverOptions): Promise<ProcessDriver> {
    const d = new ProcessDriver(o);
    await d.openProvider(true);
    // OpenAI sends a project's webhooks to its endpoint: the run gets a project of its own (run-project.ts).
    if (o.scenario.webhooks && projectWebhooks(o.dialect ?? 'native')) {
      const url = `http://127.0.0.1:${d.port}`;
      const project = await openRunProject({ url, controlToken: d.provider!.tokens.control_token }, o.dialect!, () => d.webhookTargets());
      d.token = project.token;
      d.relay = project.relay;
    }
    const p = d.provider!.tokens.tokens[d.token];
    if (!p) throw new Error(`token ${d.token} is not configured`);
    (d as { principal: { tenant: string; subject: string } }).principal = { tenant: p.tenant, subject: p.subject };
    return d;
  }

  /** The webhook ports of the workers that can take a delivery now (a paused one would hold it until the timeout). */
  private webhookTargets(): number[] {
    return [...this.workers.values()]
      .filter((w) => !w.exited && !w.killed && !w.paused && w.webhookPort !== undefined)
      .map((w) => w.webhookPort!);
  }

  private async openProvider(first: boolean): Promise<void> {
    const s = this.o.scenario;
    this.provider = createProvider({
      db: this.dbPath,
      ...(first ? { behavior: s.behavior, faults: s.faults } : {}),
      ...(this.o.profile ? { profiles: [this.o.profile.profile] } : {}),
    });
    // Connections outlive any pause the scenario holds a worker in: a pause longer than Node's 5 s keep-alive (a
    // stretched 1.5 s pause under load) would otherwise close the worker's connections under it, a fault of its own.
    this.server = await serve(this.provider, { port: this.port, host: '127.0.0.1', keepAliveTimeoutMs: KEEP_ALIVE_MS });
    this.port = this.server.port;
  }

  private env(workerId: string, webhookPort?: number): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      JOBPROOF_PROVIDER_URL: `http://127.0.0.1:${this.port}`,
      JOBPROOF_TOKEN: this.token,
      JOBPROOF_STATE: this.stateDir,
      JOBPROOF_WORKER_ID: workerId,
      JOBPROOF_LEASE_MS: String(this.o.scenario.lease_ms),
      JOBPROOF_DIALECT: this.o.profile?.dialect ?? this.o.dialect ?? 'native',
    };
    // A profile's client is also told where the profile is served (its prefix on the provider).
    if (this.o.profile) env.JOBPROOF_BASE_URL = `http://127.0.0.1:${this.port}${this.o.profile.profile.prefix}`;
    else delete env.JOBPROOF_BASE_URL;
    delete env.JOBPROOF_WEBHOOK_PORT;
    if (webhookPort !== undefined) {
      env.JOBPROOF_WEBHOOK_PORT = String(webhookPort);
      env.JOBPROOF_WEBHOOK_SECRET = this.provider!.tokens.webhook_secrets[this.principal.tenant] ?? '';
    }
    return env;
  }

  now(): number {
    return Date.now();
  }

  async waitStep(until: number): Promise<void> {
    await sleep(Math.max(1, Math.min(this.o.tickMs ?? 10, until - Date.now())));
  }

  private async call(sub: string[], stdin: string | null): Promise<{ exit: number; stdout: string }> {
    const r = await callClient(this.o.command, sub, this.env('harness'), stdin);
    if (r.exit !== 0 && r.stderr.trim())
      this.notes.push(`${sub.join(' ')} exited ${r.exit}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    return r;
  }

  async submit(op: SubmitInput): Promise<number> {
    return (await this.call(['submit'], JSON.stringify(op))).exit;
  }

  async cancel(operationId: string, intent: CancelInput): Promise<number> {
    return (await this.call(['cancel', operationId], JSON.stringify(intent))).exit;
  }

  async show(operationId: string): Promise<OperationRecord | null> {
    const r = await this.call(['show', operationId], null);
    if (r.exit !== 0) return null;
    const reading = readShowOutput(r.stdout);
    if ('record' in reading) return reading.record;
    // A client prints the same wrong shape every time: one error per operation, not one per snapshot.
    if (!this.unreadable.has(operationId)) {
      this.unreadable.set(operationId, reading.problem);
      this.notes.push(`show ${operationId}: the record does not match the protocol: ${reading.problem}`);
    }
    return null;
  }

  protocolErrors(): ReadonlyMap<string, string> {
    return this.unreadable;
  }

  async startWorker(workerId: string): Promise<void> {
    const webhookPort = this.o.scenario.webhooks ? await freePort() : undefined;
    const child = spawnClient(this.o.command, ['work'], this.env(workerId, webhookPort));
    const w: Worker = { child, exited: false, killed: false, paused: false, stderr: [], webhookPort };
    child.stdout!.resume();
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      w.stderr.push(...d.split('\n').filter(Boolean));
      if (w.stderr.length > 50) w.stderr.splice(0, w.stderr.length - 50);
    });
    child.on('exit', (code, signal) => {
      w.exited = true;
      if (!w.killed && code !== 0) this.notes.push(`${workerId} exited with ${code ?? signal}: ${w.stderr.slice(-5).join(' | ')}`);
    });
    this.workers.set(workerId, w);
  }

  async killWorker(workerId: string): Promise<void> {
    const w = this.workers.get(workerId);
    if (!w || w.exited) return;
    w.killed = true;
    w.child.kill('SIGKILL');
  }

  async pauseWorker(workerId: string, resumeAt?: number): Promise<void> {
    const w = this.workers.get(workerId);
    if (!w || w.exited) return;
    w.paused = true;
    w.child.kill('SIGSTOP');
    // The resume must not wait for the harness loop: a `cancel` call may be blocked on a lock the paused worker holds.
    if (resumeAt !== undefined) setTimeout(() => void this.resumeWorker(workerId), Math.max(0, resumeAt - Date.now())).unref();
  }

  async resumeWorker(workerId: string): Promise<void> {
    const w = this.workers.get(workerId);
    if (!w || w.exited || !w.paused) return;
    w.paused = false;
    w.child.kill('SIGCONT');
  }

  liveWorkers(): string[] {
    return [...this.workers].filter(([, w]) => !w.exited && !w.killed).map(([id]) => id);
  }

  async stopWorkers(): Promise<void> {
    const live = [...this.workers.values()].filter((w) => !w.exited);
    for (const w of live) {
      if (w.paused) w.child.kill('SIGCONT');
      w.child.kill('SIGTERM');
    }
    const until = Date.now() + 3000;
    while (live.some((w) => !w.exited) && Date.now() < until) await sleep(10);
    for (const w of live) if (!w.exited) w.child.kill('SIGKILL');
  }

  async restartProvider(downMs: number): Promise<void> {
    await this.server?.close();
    this.provider?.close();
    this.server = null;
    this.provider = null;
    await sleep(downMs);
    await this.openProvider(false);
  }

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
    // A profile's job keeps the request body it was made with: where the API has neither key nor client reference,
    // the reference the harness put in the input is how a create is linked to its operation (link-profile.ts).
    if (!this.o.profile) return p.jobs();
    return p.jobs().map((j) => ({ ...j, input: p.core.jobs.get(j.job_id)?.input }));
  }

  diagnostics(): string[] {
    return this.notes;
  }

  async close(): Promise<void> {
    await this.stopWorkers();
    await this.relay?.close();
    await this.server?.close();
    this.provider?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
