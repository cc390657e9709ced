import type { Clock } from '../lib/clock.js';
import type { IdSource } from '../lib/ids.js';
import type { JobEngine } from './engine/job-engine.js';
import type { FaultEngine } from './faults/fault-engine.js';
import type { BehaviorConfig } from '../contract/behavior.js';
import type { TokensConfig } from '../contract/principals.js';
import type { Db } from './store/database.js';
import type { IdempotencyRepo } from './store/idempotency-repo.js';
import type { JobsRepo } from './store/jobs-repo.js';
import type { JournalRepo } from './store/journal-repo.js';
import type { GroupCommit } from './store/group-commit.js';
import type { InFlight } from './http/in-flight.js';
import type { SettingsRepo } from './store/settings-repo.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';

/** Everything a route handler may touch, wired once by createProvider. */
export interface ProviderCore {
  db: Db;
  clock: Clock;
  ids: IdSource;
  jobs: JobsRepo;
  idempotency: IdempotencyRepo;
  journal: JournalRepo;
  /** One transaction per event-loop turn: a write path calls `group.join()` before it writes (store/group-commit.ts). */
  group: GroupCommit;
  settings: SettingsRepo;
  faults: FaultEngine;
  engine: JobEngine;
  webhooks: WebhookDispatcher;
  tokens: TokensConfig;
  behaviors: { get(): BehaviorConfig; set(c: BehaviorConfig): void };
  options: {
    idempotencyTtlMs: number;
    /** Seconds advised by `Retry-After` on non-final reads and in-progress conflicts. */
    pollAdviceSeconds: number;
    control: boolean;
  };
  /** True once close() ran: a request still in flight then (held by a delay) dies with the process. */
  isClosed(): boolean;
  /** Requests executing and not yet journalled: close() journals those that executed something (http/request-entry.ts). */
  inFlight: InFlight;
  /** Requests a `delay` fault holds before they execute (the seam counts them; a judge waits for them). */
  /** The X-Worker-ID (null: none sent) of each request a `delay` fault holds that has not executed yet. */
  held: (string | null)[];
}
