import { randomBytes } from 'node:crypto';
import { isoTime } from '../../lib/clock.js';
import { nextDelay, RETRY_POLICY } from '../backoff.js';
import type { HttpOptions } from '../http.js';
import { taskCall, type TaskCallOutcome } from './http.js';
import type { RemoteTask, TaskPolicy } from './policy.js';
import { TaskLeaseLostError, type TaskLease } from './lease.js';
import type { TaskStore } from './store.js';
import type { HistoryInput, TaskOpRow, TaskOpState, TaskPatch } from './types.js';

/** What the task workflow's steps (create, observe, apply) share: the store, the provider, the policy and limits. */
export interface TaskStepEnv {
  store: TaskStore;
  http: HttpOptions;
  policy: TaskPolicy;
  /** Poll interval while a task waits for review (the provider gives no Retry-After then). */
  reviewPollMs: number;
  maxCreate: number;
  maxApply: number;
  maxReadFailures: number;
  leaseMs: number;
  now(): number;
}

type TaskCallSpec = Parameters<typeof taskCall>[1];

/**
 * One worker's turn on one leased task operation (the OpStep discipline of op-step.ts): the only way it talks to the
 * provider is `send` (the lease renewed first) and the only way it writes is `change` (fenced on the lease's token,
 * moves checked by the transition table). Both throw TaskLeaseLostError once the lease is gone, which ends the turn
 * with nothing more sent and nothing written.
 */
export interface TaskTurn extends TaskStepEnv {
  lease: TaskLease;
  send(spec: TaskCallSpec, signal?: AbortSignal): Promise<TaskCallOutcome>;
  change(patch: TaskPatch, history?: HistoryInput): Promise<TaskOpRow>;
}

export function taskTurn(env: TaskStepEnv, lease: TaskLease): TaskTurn {
  return {
    ...env,
    lease,
    async send(spec, signal) {
      if (signal?.aborted) throw new Stopped();
      if (!(await env.store.renew(lease, env.now(), env.leaseMs))) throw new TaskLeaseLostError(lease.task_op_id);
      return taskCall(env.http, spec, signal);
    },
    change: (patch, history) => env.store.change(lease, patch, history),
  };
}

/** The worker was asked to stop while a step waited: the operation stays where its record says. */
export class Stopped extends Error {}

/** 128 random bits, hex. */
export function newKey(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

/**
 * When to try again after an unanswered or throttled call: the shared jittered backoff (backoff.ts, seeded by the
 * operation id so workers spread out), never before the provider's Retry-After.
 */
export function retryDelay(row: TaskOpRow, attempt: number, retryAfterMs: number | null): number {
  return nextDelay(RETRY_POLICY, attempt, row.task_op_id, retryAfterMs);
}

/** A history entry to `to`, stamped now. */
export function entry(w: Pick<TaskStepEnv, 'now'>, to: TaskOpState, cause: string, evidence: Record<string, unknown> = {}): HistoryInput {
  return { at: isoTime(w.now()), to, cause, evidence };
}

export async function attention(w: TaskTurn, reason: string, evidence: Record<string, unknown> = {}): Promise<number> {
  await w.change({ reason, updated_at: w.now() }, entry(w, 'needs_attention', reason, evidence));
  return 0;
}

export async function readTask(w: TaskTurn, row: TaskOpRow, signal?: AbortSignal): Promise<TaskCallOutcome> {
  return w.send({ method: 'GET', path: `/v1/tasks/${row.task_id}`, traceId: row.trace_id }, signal);
}

export async function finishFromTask(w: TaskTurn, task: RemoteTask, cause: string): Promise<boolean> {
  const map: Record<string, TaskOpState> = { applied: 'applied', rejected: 'rejected', failed: 'failed', apply_failed: 'apply_failed' };
  const to = map[task.state];
  if (!to) return false;
  await w.change(
    { application: task.application, reason: task.error?.code ?? null, updated_at: w.now() },
    entry(w, to, cause, { task_state: task.state, application: task.application, review: task.review }),
  );
  return true;
}
