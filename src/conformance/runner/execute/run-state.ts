import { isoTime } from '../../../lib/clock.js';
import type { OperationRecord, SubmitInput } from '../../../contract/client-protocol.js';
import type { HarnessAction, Scenario, ScenarioEvent } from '../../../scenarios/index.js';
import type { CancelIntent, HarnessEvent, Submission } from '../../checker/evidence.js';
import type { RunDriver } from '../driver.js';
import { EventTracker } from '../triggers.js';
import type { ClientDialect } from '../../dialect/batch-input.js';
import { carriesRef, profileRefFor, type ProfileTarget } from '../../dialect/profile-input.js';

export interface ExecuteOptions {
  /** Extra run time past the latest deadline before the run is cut off and judged as it stands. */
  marginMs?: number;
  /** Fresh workers the harness may start when none is left while operations are still open. */
  maxRescueWorkers?: number;
  /** Judge tolerances for this kind of run (real processes on a loaded machine need more slack than a virtual clock). */
  tolerances?: { deadline_grace_ms?: number; retry_after_tolerance_ms?: number; clock_tolerance_ms?: number };
  /** Called on notable steps (progress lines for people). */
  log?: (line: string) => void;
  /**
   * The wire dialect the client speaks (spec/dialects.md): each operation's `input` is turned into a batch with
   * custom_ids unique across operations before `submit`. Default `native`.
   */
  dialect?: ClientDialect;
  /** The API profile the client speaks (profiles.md): each operation's `input` is the request body the API takes. */
  profile?: ProfileTarget;
}

export interface PendingAction {
  action: HarnessAction;
  index: number;
  triggeredAt?: number;
}

/** A paused worker's resume: at `at`, or if `after` is given once that is seen too, but no later than `by`. */
export interface PendingResume {
  worker: string;
  at: number;
  after?: ScenarioEvent;
  by: number;
}

export function stripAt(op: Scenario['workload'][number]): SubmitInput {
  const { at_ms: _at, ...rest } = op;
  return rest;
}

/** The latest moment anything in the scenario may still legitimately happen, relative to the run start. */
export function horizonMs(s: Scenario): number {
  let h = 0;
  for (const op of s.workload) h = Math.max(h, op.at_ms + op.create_deadline_ms + op.result_deadline_ms);
  for (const a of s.actions) {
    const at = (a.at_ms ?? 0) + a.delay_ms;
    if (a.type === 'cancel') h = Math.max(h, at + a.cancel_deadline_ms);
    if (a.type === 'pause_worker') h = Math.max(h, at + Math.max(a.resume_after_ms, a.resume_by_ms ?? 0));
  }
  return h;
}

/**
 * Everything one scenario run keeps while it goes: what is still to come (later operations, actions, resumes),
 * what the harness did (the evidence it hands the judge), and what it has seen of the journal and the workers.
 */
export class RunState {
  readonly t0: number;
  /** Past this the run is cut off and judged as it stands. */
  readonly deadline: number;
  readonly log: (line: string) => void;
  readonly tracker = new EventTracker();
  readonly submissions: Submission[] = [];
  readonly cancels: CancelIntent[] = [];
  readonly harness: HarnessEvent[] = [];
  /** Operations the client recorded, in submit order. */
  readonly operations: string[] = [];
  /** Final records read while no worker ran: they cannot change any more. */
  readonly finals = new Map<string, OperationRecord>();
  /** Operations whose key an event trigger needs (only those cost a `show` after submit). */
  readonly needsKey: Set<string>;
  readonly pending: PendingAction[];
  readonly laterOps: Scenario['workload'];
  readonly resumes: PendingResume[] = [];
  readonly killedByHarness = new Set<string>();
  seenLive = new Set<string>();
  journalSeq = 0;
  /** Longest submit call: how uncertain the client's start of its deadlines is (the judge tolerates that much). */
  submitSpread = 0;
  rescues = 0;
  /** Harness-started workers get ids of their own (rescue-N), never one a scenario action uses. */
  freshWorker = 0;
  timedOut = false;
  /** Idle turns in a row at which `show` yielded no record for any open operation. */
  unreadableTurns = 0;
  /** Why the run ended before every operation was final and before its time bound (records nobody can read). */
  stopReason: string | null = null;

  constructor(
    readonly s: Scenario,
    readonly d: RunDriver,
    readonly opts: ExecuteOptions,
  ) {
    this.log = opts.log ?? (() => undefined);
    this.t0 = d.now();
    this.deadline = this.t0 + horizonMs(s) + s.quiet_timeout_ms + (opts.marginMs ?? 5000);
    const events = s.actions.flatMap((a) => [a.after, a.type === 'pause_worker' ? a.resume_after : undefined]);
    this.needsKey = new Set(events.flatMap((ev) => (ev && 'operation' in ev ? [ev.operation] : [])));
    this.pending = s.actions.map((action, index) => ({ action, index }));
    this.laterOps = s.workload.filter((o) => o.at_ms > 0);
    // A keyless profile's create carries no key and maybe no client reference: the job it made names its operation.
    if (opts.profile)
      this.tracker.ownerOfJob = (jobId) => {
        const job = d.providerJobs().find((j) => j.job_id === jobId) as { input?: { request?: unknown } } | undefined;
        return this.operations
          .concat(s.workload.map((o) => o.operation_id))
          .find((op) => carriesRef(job?.input?.request, profileRefFor(op)));
      };
  }

  event(type: HarnessEvent['type'], worker_id?: string, at = this.d.now()): void {
    this.harness.push({ at: isoTime(at), type, worker_id });
  }

  /**
   * Whether an action still waits for a journal event. Only then is the journal read while the run goes: the
   * tracker marks each event at the entry's own time, so reading it later (at the end, for the judge) changes nothing.
   */
  awaitsEvent(): boolean {
    return (
      this.pending.some((p) => p.triggeredAt === undefined && p.action.at_ms === undefined && p.action.after !== undefined) ||
      this.resumes.some((r) => r.after !== undefined)
    );
  }

  pumpJournal(): void {
    for (const e of this.d.journalSince(this.journalSeq)) {
      this.tracker.ingest(e);
      this.journalSeq = e.seq;
    }
  }

  async startWorker(id: string): Promise<void> {
    await this.d.startWorker(id);
    this.event('start', id);
  }

  /** A harness-started worker with a fresh id. */
  async startFreshWorker(): Promise<string> {
    const id = `rescue-${++this.freshWorker}`;
    await this.startWorker(id);
    return id;
  }
}
