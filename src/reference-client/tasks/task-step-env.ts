import { randomBytes } from 'node:crypto';
import { isoTime } from '../../lib/clock.js';
import { nextDelay, RETRY_POLICY } from '../backoff.js';
import type { HttpOptions } from '../http.js';
import { taskCall, type TaskCallOutcome } from './http.js';
import type { RemoteTask, TaskPolicy } from './policy.js';
import type { HistoryInput, TaskStore } from './store.js';
import type { TaskOpRow, TaskOpState } from './types.js';

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
  now(): number;
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
export function entry(w: TaskStepEnv, to: TaskOpState, cause: string, evidence: Record<string, unknown> = {}): HistoryInput {
  return { at: isoTime(w.now()), to, cause, evidence };
}

export async function attention(w: TaskStepEnv, row: TaskOpRow, reason: string, evidence: Record<string, unknown> = {}): Promise<number> {
  await w.store.change(row.task_op_id, { reason, updated_at: w.now() }, entry(w, 'needs_attention', reason, evidence));
  return 0;
}

export async function readTask(w: TaskStepEnv, row: TaskOpRow, signal?: AbortSignal): Promise<TaskCallOutcome> {
  return taskCall(w.http, { method: 'GET', path: `/v1/tasks/${row.task_id}`, traceId: row.trace_id }, signal);
}

export async function finishFromTask(w: TaskStepEnv, row: TaskOpRow, task: RemoteTask, cause: string): Promise<boolean> {
  const map: Record<string, TaskOpState> = { applied: 'applied', rejected: 'rejected', failed: 'failed', apply_failed: 'apply_failed' };
  const to = map[task.state];
  if (!to) return false;
  await w.store.change(
    row.task_op_id,
    { application: task.application, reason: task.error?.code ?? null, updated_at: w.now() },
    entry(w, to, cause, { task_state: task.state, application: task.application, review: task.review }),
  );
  return true;
}
