import type { InProcessClientFactory } from '../../contract/client-protocol.js';
import type { InProcessTaskClientFactory } from '../../contract/task-client-protocol.js';
import type { Scenario } from '../../scenarios/index.js';
import type { ClientDialect } from '../dialect/batch-input.js';
import type { ProfileTarget } from '../dialect/profile-input.js';
import type { FactoryModule } from '../property-lanes.js';
import type { Shard } from '../shard.js';

/** Who is under test: one command speaking the client protocol (its job and task verbs), or in-process factories. */
export type PlanClient =
  | { kind: 'process'; command: string }
  | {
      kind: 'in-process';
      /** The job client (the jobs suite). */
      jobs?: InProcessClientFactory;
      /** Where worker threads load the same job client from, for random schedules on lanes (none: this thread). */
      jobsModule?: FactoryModule;
      /** The task client (the tasks suite). */
      tasks?: InProcessTaskClientFactory;
    };

/** The jobs suite: catalog scenarios (the whole chosen list; the pipeline takes the shard's part) and random schedules. */
export interface JobsSuitePlan {
  scenarios: readonly Scenario[];
  /** Random fault schedules after the catalog. */
  runs: number;
  /** Worker threads for in-process random schedules (1: this thread). */
  lanes: number;
  /** fast-check replay path of one failing schedule. */
  path?: string;
  /** Where the minimal failing schedule is written. */
  minimalOut?: string;
  /** How long a failing schedule may be shrunk; unbounded when absent. */
  shrinkBudgetMs?: number;
}

/** The tasks suite: the task scenarios of src/scenarios (all of them: they are few). */
export interface TasksSuitePlan {
  scenarios?: readonly string[];
}

/**
 * A certification to run: the client, its declarations (webhooks, dialect), the suites and how to run them. The
 * pipeline (`certify`) turns it into one report; the CLI builds it from flags, the library from options.
 */
export interface CertificationPlan {
  version: string;
  /** How the client is named in the report. */
  label: string;
  client: PlanClient;
  /** The client listens for webhooks; without, webhook-only scenarios are skipped and the others run on polling. */
  webhooks: boolean;
  dialect: ClientDialect;
  /**
   * The API profile the client speaks (profiles.md): each scenario's provider serves it, the client gets
   * JOBPROOF_DIALECT=<profile>, scenarios it cannot express are not_applicable. `source` is what the report names.
   */
  profile?: ProfileTarget & { source: string };
  seed: number;
  shard?: Shard;
  /** Cases run at once for process clients. */
  parallel: number;
  /** Whether `parallel` was asked for (else calibration may lower it, and task lanes stay within the cores). */
  parallelGiven: boolean;
  /** A given time scale; otherwise calibrated for a process client, virtual (1) in-process. */
  timeScale?: number;
  /** `--client` as given, for the replay lines of a failing random schedule. */
  clientFlag?: string;
  jobs?: JobsSuitePlan;
  tasks?: TasksSuitePlan;
}
