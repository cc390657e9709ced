import type { Hono } from 'hono';
import { realClock, type Clock } from '../lib/clock.js';
import { randomId, type IdSource } from '../lib/ids.js';
import type { ProviderCore } from './core.js';
import { JobEngine } from './engine/job-engine.js';
import { jobView } from './engine/job-view.js';
import { FaultEngine } from './faults/fault-engine.js';
import { buildApp } from './http/app.js';
import { InFlight } from './http/in-flight.js';
import { journalPath, journalRequest } from './http/request-entry.js';
import { mountDashboard, type DashboardOptions } from './dashboard/index.js';
import { ProviderControl, type Checked, type ScenarioLookup } from './control.js';
import type { Env } from './http/context.js';
import { parseBehaviorConfig, type Behavior, type BehaviorConfig, type BehaviorConfigInput } from '../contract/behavior.js';
import type { Job } from '../contract/jobs.js';
import type { FaultPlanInput } from '../contract/faults.js';
import type { JournalEntry } from '../contract/journal.js';
import { resolveTokensConfig, type TokensConfig, type TokensConfigInput } from '../contract/principals.js';
import { closeDatabase, openDatabase } from './store/database.js';
import { IdempotencyRepo } from './store/idempotency-repo.js';
import { JobsRepo } from './store/jobs-repo.js';
import { JournalRepo } from './store/journal-repo.js';
import { GroupCommit } from './store/group-commit.js';
import { startBackgroundCheckpoint } from './store/background-checkpoint.js';
import { SettingsRepo } from './store/settings-repo.js';
import { takeImage, type StoreImage } from './store/store-image.js';
import { persistPrincipals } from './store/principals-persistence.js';
import { createJobsModule } from './jobs/index.js';
import type { ProviderModule } from './module.js';
import type { Principal } from '../contract/principals.js';
import { createTasksModule, type TaskService } from './tasks/index.js';
import { createDialectsModule } from './dialects/index.js';
import { createProfilesModule } from './profiles/index.js';
import type { Profile } from '../contract/profiles.js';
import { inProcessFetch } from './transports/in-process-fetch.js';
import { defaultWebhookOptions, WebhookDispatcher, type WebhookOptions } from './webhooks/dispatcher.js';
import { WebhookRepo } from './webhooks/webhook-repo.js';

export interface ProviderOptions {
  /** SQLite file, or ':memory:' (default). A provider reopened on the same file carries on where it stopped. */
  db?: string;
  clock?: Clock;
  tokens?: TokensConfigInput;
  /** Behaviour of new jobs; when given it replaces the stored configuration. */
  behavior?: BehaviorConfigInput;
  /** Fault plan to install at start; when given it replaces the stored plan. */
  faults?: FaultPlanInput;
  ids?: IdSource;
  idempotencyTtlMs?: number;
  pollAdviceSeconds?: number;
  /** Serve the control API (default true). */
  control?: boolean;
  /** How webhooks reach receivers: global fetch by default; the in-process harness routes them itself. */
  webhookFetch?: typeof fetch;
  webhooks?: Partial<WebhookOptions>;
  /** Keep only the newest N journal entries (long soaks, `serve --journal-max`); the judge needs them all. */
  journalMax?: number | null;
  /** Lets `PUT /_control/scenario {"name"}` switch to a named scenario's provider-side behaviour and faults. */
  scenarioLookup?: ScenarioLookup;
  /** Serve the live dashboard at `/_dashboard` (default off here; `jobproof serve` turns it on). */
  dashboard?: boolean | DashboardOptions;
  /**
   * File stores: WAL checkpoints on a thread of their own instead of inside a commit on the event loop (`jobproof
   * serve`; store/background-checkpoint.ts). Off by default: short-lived providers (tests, in-process runs) need no thread.
   */
  backgroundCheckpoint?: boolean;
  /**
   * A provider for one short run (an in-process schedule): routes are matched without building a router first, and
   * a `:memory:` store is a wiped one an earlier short-lived provider of this thread closed (store/memory-pool.ts).
   */
  shortLived?: boolean;
  /** Open a `:memory:` store from the one `closeToImage()` left, as a reopened file is opened (a restart in process). */
  image?: StoreImage;
  /** A `:memory:` store that a restart reopens (`image`): what a crash must not take back waits for the commit. */
  restartable?: boolean;
  /** OpenAI dialect: where each tenant's batch events go (`{tenant: url}`); replaces the stored ones when given. */
  openaiWebhooks?: Record<string, string>;
  /** API profiles to serve, each under its prefix (profiles.md); parse them with `parseProfileText` / `loadProfile`. */
  profiles?: Profile[];
}

export interface Provider {
  app: Hono<Env>;
  /** Talk to the provider without a socket. Relative URLs resolve against http://jobproof.test. */
  fetch: typeof fetch;
  clock: Clock;
  tokens: TokensConfig;
  /**
   * The journal. Entries are group-committed: reads flush first; `committed()` resolves once every entry so far is
   * on disk (a transport answering over the network waits for it before it sends).
   */
  journal: {
    all(): JournalEntry[];
    since(seq: number, limit?: number): JournalEntry[];
    lastSeq(): number;
    committed(): Promise<void>;
    flush(): void;
  };
  control: {
    setBehavior(config: BehaviorConfigInput): void;
    behavior(): BehaviorConfig;
    setFaults(plan: FaultPlanInput): void;
    clearFaults(): void;
    reset(): void;
  };
  /** Every job held, as its public Job object at the provider's now, with its tenant and behaviour (for judges). */
  jobs(): Array<Job & { tenant: string; behavior: Behavior }>;
  /** @internal The wiring behind the routes; stripped from the published types. */
  core: ProviderCore;
  /** The tasks API (tasks-api.md). */
  tasks: TaskService;
  /** Resolves when no webhook delivery is on the wire. */
  idle(): Promise<void>;
  /**
   * Requests held by a `delay` fault that have not executed yet. A create held past the moment its client gave up
   * still creates its job: a judge that stopped looking before then would miss it.
   */
  heldRequests(): number;
  /** The X-Worker-ID of each held request (those that sent one), oldest hold first. */
  heldBy(): string[];
  close(): void;
  /** Close, and hand back what the store holds, as a reopened file would hold it: the next provider's `image`. */
  closeToImage(): StoreImage;
}

const BEHAVIOR = 'behavior_config';

/** The library's control methods throw what the control API answers 400 with. */
function unwrap(r: Checked<unknown>): void {
  if (!r.ok) throw r.error;
}

export function createProvider(opts: ProviderOptions = {}): Provider {
  const db = openDatabase(opts.db ?? ':memory:', { reuse: opts.shortLived, image: opts.image });
  const checkpointer = opts.backgroundCheckpoint && opts.db && opts.db !== ':memory:' ? startBackgroundCheckpoint(db, opts.db) : null;
  const clock = opts.clock ?? realClock;
  const ids = opts.ids ?? randomId;
  const settings = new SettingsRepo(db);
  const jobs = new JobsRepo(db);
  const group = new GroupCommit(db);
  const journal = new JournalRepo(db, group, {
    maxEntries: opts.journalMax ?? null,
    // A short-lived provider is its store's only writer (an in-process run: a restart closes one before the next opens).
    keepDecoded: opts.shortLived,
  });
  const webhookRepo = new WebhookRepo(db);
  const faults = new FaultEngine(settings);
  const tokens = resolveTokensConfig(opts.tokens);

  let behaviors: BehaviorConfig = opts.behavior
    ? parseBehaviorConfig(opts.behavior)
    : (settings.get<BehaviorConfig>(BEHAVIOR) ?? parseBehaviorConfig({}));
  settings.put(BEHAVIOR, behaviors);
  if (opts.faults) faults.install(opts.faults);

  let closed = false;
  // Virtual clocks (in-process runs) keep exact timers: their schedules are replayed to the millisecond.
  const engine = new JobEngine({
    db,
    jobs,
    journal,
    webhookRepo,
    clock,
    ids,
    group,
    timerQuantumMs: clock === realClock ? 5 : 0,
    webhooks: (reschedule) =>
      new WebhookDispatcher({
        repo: webhookRepo,
        journal,
        faults,
        clock,
        ids,
        // Never another tenant's key: a delivery for a tenant without a secret fails (journalled with the reason).
        secretFor: (tenant) => {
          const secret = tokens.webhook_secrets[tenant];
          if (!secret) throw new Error(`no webhook secret for tenant '${tenant}'`);
          return secret;
        },
        fetch: opts.webhookFetch ?? ((...a) => globalThis.fetch(...a)),
        options: { ...defaultWebhookOptions, ...opts.webhooks },
        reschedule,
        isClosed: () => closed,
        // A receiver must not see an event a crash could take back; a ':memory:' store survives no crash anyway,
        // unless a restart reopens it (`restartable`).
        beforeSend: (opts.db ?? ':memory:') === ':memory:' && !opts.restartable ? undefined : () => group.committed(),
        kindOf: (jobId) => jobs.get(jobId)?.kind,
      }),
  });
  const webhooks = engine.webhooks;

  // The token table as configured: a reset forgets principals changed through the control API.
  const configuredTokens: Record<string, Principal> = { ...tokens.tokens };
  // The table of the last run (changed through the control API) comes back from the database, like tasks and objects.
  persistPrincipals(tokens, settings, opts.tokens?.tokens !== undefined);
  const core: ProviderCore = {
    db,
    clock,
    ids,
    jobs,
    journal,
    settings,
    faults,
    engine,
    webhooks,
    tokens,
    group,
    idempotency: new IdempotencyRepo(db),
    behaviors: {
      get: () => behaviors,
      set: (c) => {
        behaviors = c;
        settings.put(BEHAVIOR, c);
      },
    },
    options: {
      idempotencyTtlMs: opts.idempotencyTtlMs ?? 24 * 3600 * 1000,
      pollAdviceSeconds: opts.pollAdviceSeconds ?? 1,
      control: opts.control ?? true,
    },
    isClosed: () => closed,
    held: [],
    inFlight: new InFlight(),
  };

  // The provider's APIs, each a module registered through the same interface (module.ts): routes, control
  // additions, webhook shapes, tick, reset, close. OpenAI Batch and Anthropic Message Batches run on the jobs engine.
  const tasks = createTasksModule(core);
  const modules: ProviderModule[] = [
    createJobsModule(core),
    tasks,
    createDialectsModule(core, { openaiWebhooks: opts.openaiWebhooks }),
    createProfilesModule(core, opts.profiles ?? []),
  ];
  for (const m of modules)
    for (const [kind, shaper] of Object.entries(m.webhookShapers ?? {}))
      webhooks.shapeKind(kind, shaper, { signed: !m.unsignedWebhookKinds?.includes(kind) });
  const control = new ProviderControl({ core, resets: modules.map((m) => () => m.reset()), configuredTokens, lookup: opts.scenarioLookup });
  const dashboard = opts.dashboard;
  const app = buildApp(
    core,
    modules,
    control,
    dashboard ? (a) => mountDashboard(a, core, control, dashboard === true ? {} : dashboard) : undefined,
    opts.shortLived,
  );
  // Jobs and tasks that fell due while the provider was down move on now.
  for (const m of modules) m.tick();

  return {
    app,
    fetch: inProcessFetch(app),
    clock,
    tokens,
    journal: {
      all: () => journal.all(),
      since: (s, l) => journal.since(s, l),
      lastSeq: () => journal.lastSeq(),
      committed: () => journal.committed(),
      flush: () => journal.flush(),
    },
    control: {
      setBehavior: (c) => unwrap(control.setBehavior(c)),
      behavior: () => control.behavior(),
      setFaults: (p) => unwrap(control.installFaults(p)),
      clearFaults: () => control.clearFaults(),
      reset: () => control.reset(),
    },
    jobs: () => {
      const now = clock.now();
      return jobs.all().map((j) => ({ ...jobView(j, now), tenant: j.tenant, behavior: j.behavior }));
    },
    core,
    tasks: tasks.service,
    idle: () => webhooks.idle(),
    heldRequests: () => core.held.length,
    heldBy: () => core.held.filter((w): w is string => w !== null),
    close: () => void shutDown(false),
    closeToImage: () => shutDown(true) ?? closedAlready(),
  };

  function shutDown(keepImage: boolean): StoreImage | null {
    if (closed) return null;
    closed = true;
    for (const m of modules) m.close();
    // The turn commits below with whatever requests still executing changed: their entries go with it.
    core.inFlight.cutOff((c, status, retryAfter) => journalRequest(core, c, journalPath(c), status, retryAfter));
    group.close();
    journal.close();
    if (checkpointer) {
      checkpointer.stop();
      // The thread's connection may outlive this one, which then is not the last to close and would leave the WAL
      // as it is: empty it into the store file first, so the file alone holds everything, as after any close.
      checkpointer.drain(db);
    }
    const image = keepImage ? takeImage(db) : null;
    closeDatabase(db);
    return image;
  }
}

function closedAlready(): never {
  throw new Error('closeToImage: the provider is closed already');
}
