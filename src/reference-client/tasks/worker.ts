import type { Clock } from '../../lib/clock.js';
import { REFERENCE_POLICY, type TaskPolicy } from './policy.js';
import type { TaskStore } from './store.js';
import { apply } from './task-apply-step.js';
import { create } from './task-create-step.js';
import { observe } from './task-observe-step.js';
import { TaskLeaseLostError } from './lease.js';
import { entry, newKey, Stopped, taskTurn, type TaskStepEnv, type TaskTurn } from './task-step-env.js';
import {
  isFinalTaskOp,
  SubmitTaskInputSchema,
  type NewTaskOpRow,
  type SubmitTaskInput,
  type TaskOpRow,
  type TaskOpState,
  type TaskReport,
} from './types.js';

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
  /** How long a worker's lease on an operation lasts without a renewal (each send renews it). */
  leaseMs?: number;
  policy?: TaskPolicy;
}

/**
 * The durable task workflow: create (one key, replayed on every retry), poll, wait for a current approval, apply
 * with its own key (stored before the first send, replayed on every retry), report the application. Every step
 * reads the stored record first and writes its outcome in one transaction, so a restart carries on where it stopped.
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

  private h(to: TaskOpState, cause: string, evidence: Record<string, unknown> = {}) {
    return entry(this.env, to, cause, evidence);
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
   * Drive one operation to a final state (or until `signal` aborts: then its state so far). Each turn leases the
   * operation, steps it under the lease (taskTurn: fenced writes, the lease renewed before each send) and hands the
   * lease back before waiting, so a successor of a crashed worker waits at most one lease.
   */
  async runTask(id: string, signal?: AbortSignal): Promise<TaskReport> {
    try {
      for (;;) {
        const seen = await this.store.get(id);
        if (!seen) throw new Error(`unknown task operation ${id}`);
        if (isFinalTaskOp(seen.state) || signal?.aborted) return this.report(id);
        const lease = await this.store.claim(id, this.workerId, this.now(), this.env.leaseMs, null);
        if (!lease) {
          // Another worker is stepping it: look again when its lease runs out.
          await this.sleep(Math.max(1, (seen.lease_expires_at ?? this.now()) - this.now()), signal);
          continue;
        }
        let wait = 0;
        try {
          wait = await this.turn(taskTurn(this.env, lease), (await this.store.get(id))!, signal);
        } catch (err) {
          if (!(err instanceof TaskLeaseLostError)) throw err;
        } finally {
          await this.store.release(lease).catch(() => undefined);
        }
        if (wait > 0) await this.sleep(wait, signal);
      }
    } catch (err) {
      if (err instanceof Stopped) return this.report(id);
      throw err;
    }
  }

  private async turn(w: TaskTurn, row: TaskOpRow, signal?: AbortSignal): Promise<number> {
    if (isFinalTaskOp(row.state)) return 0;
    if (this.now() > row.deadline_at && row.state !== 'applying') {
      await w.change({ reason: 'deadline passed', updated_at: this.now() }, this.h('needs_attention', `deadline passed in ${row.state}`));
      return 0;
    }
    if (row.state === 'create_pending') return create(w, row, signal);
    if (row.state === 'applying') return apply(w, row, signal);
    return observe(w, row, signal);
  }

  private async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.o.clock.sleep(ms, signal);
    } catch {
      throw new Stopped();
    }
  }
}
