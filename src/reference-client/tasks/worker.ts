import type { Clock } from '../../lib/clock.js';
import { REFERENCE_POLICY, type TaskPolicy } from './policy.js';
import { LeaseLoop } from '../lease-loop.js';
import type { TaskStore } from './store.js';
import { taskKind } from './task-kind.js';
import { newKey, type TaskStepEnv } from './task-step-env.js';
import { SubmitTaskInputSchema, type NewTaskOpRow, type SubmitTaskInput, type TaskOpRow, type TaskReport } from './types.js';

export interface TaskWorkerOptions {
  store: TaskStore;
  fetch: typeof fetch;
  clock: Clock;
  providerUrl: string;
  token: string;
  workerId?: string;
  /** Poll interval while a task waits for review (the provider gives no Retry-After then). */
  reviewPollMs?: number;
  requestTimeoutMs?: number;
  maxCreateAttempts?: number;
  /** Apply sends (all with the one apply key) before the operation needs a person. */
  maxApplyAttempts?: number;
  maxReadFailures?: number;
  /** How long a worker's lease on an operation lasts without a renewal (the loop's heartbeat and each send renew it). */
  leaseMs?: number;
  policy?: TaskPolicy;
  /** Operations stepped at once by this worker (default 16). */
  concurrency?: number;
  /** Longest sleep before looking at the store again (default 1000 ms). */
  idlePollMs?: number;
}

/**
 * The durable task workflow: create (one key, replayed on every retry), poll, wait for a current approval, apply
 * with its own key (stored before the first send, replayed on every retry), report the application. Every step
 * reads the stored record first and writes its outcome in one transaction, so a restart carries on where it stopped.
 * One worker steps all its operations in the one lease loop the job worker uses.
 */
export class TaskWorker {
  readonly store: TaskStore;
  private readonly env: TaskStepEnv;

  constructor(private readonly o: TaskWorkerOptions) {
    this.store = o.store;
    this.env = {
      store: o.store,
      now: () => o.clock.now(),
      policy: o.policy ?? REFERENCE_POLICY,
      reviewPollMs: o.reviewPollMs ?? 1_000,
      maxCreate: o.maxCreateAttempts ?? 8,
      maxApply: o.maxApplyAttempts ?? 8,
      maxReadFailures: o.maxReadFailures ?? 20,
      leaseMs: o.leaseMs ?? 10_000,
      http: {
        fetch: o.fetch,
        clock: o.clock,
        providerUrl: o.providerUrl,
        token: o.token,
        workerId: o.workerId ?? 'task-worker',
        timeoutMs: o.requestTimeoutMs ?? 10_000,
      },
    };
  }

  private get workerId(): string {
    return this.env.http.workerId;
  }

  private now(): number {
    return this.o.clock.now();
  }

  /** Record the intent (with its create key) before anything is sent. Submitting the same id again is a no-op. */
  async submitTask(input: SubmitTaskInput): Promise<TaskOpRow> {
    const op = SubmitTaskInputSchema.parse(input);
    const now = this.now();
    const row: NewTaskOpRow = {
      task_op_id: op.task_op_id,
      type: op.type,
      object_ref: op.object_ref,
      object_version: op.object_version,
      input: op.input,
      create_key: newKey('tcreate'),
      apply_key: null,
      trace_id: newKey('tr'),
      task_id: null,
      initiator: null,
      proposal_version: null,
      approval: null,
      application: null,
      reason: null,
      create_attempts: 0,
      apply_attempts: 0,
      read_failures: 0,
      submitted_at: now,
      deadline_at: now + op.deadline_ms,
      updated_at: now,
    };
    await this.store.insert(row, { create_key: row.create_key, object_ref: op.object_ref, object_version: op.object_version });
    return (await this.store.get(op.task_op_id))!;
  }

  async report(id: string): Promise<TaskReport> {
    const r = await this.store.get(id);
    if (!r) throw new Error(`unknown task operation ${id}`);
    return {
      task_op_id: r.task_op_id,
      state: r.state,
      task_id: r.task_id,
      application: r.application,
      apply_key: r.apply_key,
      reason: r.reason,
    };
  }

  /**
   * Drive every open operation (or only `only`) until none is open or `signal` aborts: the one lease loop of the job
   * worker (lease-loop.ts), with task operations as its kind. Operations submitted meanwhile are picked up.
   */
  async run(signal: AbortSignal, only?: string): Promise<void> {
    const kind = taskKind(this.env, only === undefined ? undefined : new Set([only]));
    const { clock, concurrency, idlePollMs } = this.o;
    await new LeaseLoop(kind, { clock, workerId: this.workerId, leaseMs: this.env.leaseMs, concurrency, idlePollMs }).run(signal);
  }

  /** Drive one operation to a final state (or until `signal` aborts: then its state so far). */
  async runTask(id: string, signal: AbortSignal = new AbortController().signal): Promise<TaskReport> {
    if (!(await this.store.get(id))) throw new Error(`unknown task operation ${id}`);
    await this.run(signal, id);
    return this.report(id);
  }
}
