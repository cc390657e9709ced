import { randomBytes } from 'node:crypto';
import { isoTime, type Clock } from '../../lib/clock.js';
import type { HttpOptions } from '../http.js';
import { codeOf, taskCall, type TaskCallOutcome } from './http.js';
import { REFERENCE_POLICY, type RemoteTask, type TaskPolicy } from './policy.js';
import type { HistoryInput, TaskStore } from './store.js';
import { isFinalTaskOp, SubmitTaskInputSchema, type SubmitTaskInput, type TaskOpRow, type TaskOpState, type TaskReport } from './types.js';

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
  policy?: TaskPolicy;
}

/** 128 random bits, hex. */
export function newKey(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

function backoff(attempt: number): number {
  return Math.min(8_000, 500 * 2 ** Math.min(attempt, 10));
}

class Stopped extends Error {}

/**
 * The durable task workflow: create (one key, replayed on every retry), poll, wait for a current approval, apply
 * with its own key (stored before the first send, replayed on every retry), report the application. Every step
 * reads the stored record first and writes its outcome in one transaction, so a restart carries on where it stopped.
 */
export class TaskWorker {
  readonly store: TaskStore;
  private readonly http: HttpOptions;
  private readonly policy: TaskPolicy;
  private readonly reviewPollMs: number;
  private readonly maxCreate: number;
  private readonly maxApply: number;
  private readonly maxReadFailures: number;

  constructor(private readonly o: TaskWorkerOptions) {
    this.store = o.store;
    this.http = {
      fetch: o.fetch,
      clock: o.clock,
      providerUrl: o.providerUrl,
      token: o.token,
      workerId: o.workerId ?? 'task-worker',
      timeoutMs: o.requestTimeoutMs ?? 10_000,
    };
    this.policy = o.policy ?? REFERENCE_POLICY;
    this.reviewPollMs = o.reviewPollMs ?? 1_000;
    this.maxCreate = o.maxCreateAttempts ?? 8;
    this.maxApply = o.maxApplyAttempts ?? 8;
    this.maxReadFailures = o.maxReadFailures ?? 20;
  }

  private now(): number {
    return this.o.clock.now();
  }

  private h(to: TaskOpState, cause: string, evidence: Record<string, unknown> = {}): HistoryInput {
    return { at: isoTime(this.now()), to, cause, evidence };
  }

  /** Record the intent (with its create key) before anything is sent. Submitting the same id again is a no-op. */
  async submitTask(input: SubmitTaskInput): Promise<TaskOpRow> {
    const op = SubmitTaskInputSchema.parse(input);
    const now = this.now();
    const row: TaskOpRow = {
      task_op_id: op.task_op_id,
      state: 'create_pending',
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
    await this.store.insert(
      row,
      this.h('create_pending', 'submit', { create_key: row.create_key, object_ref: op.object_ref, object_version: op.object_version }),
    );
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

  /** Drive one operation to a final state (or until `signal` aborts: then its state so far). */
  async runTask(id: string, signal?: AbortSignal): Promise<TaskReport> {
    try {
      for (;;) {
        const row = await this.store.get(id);
        if (!row) throw new Error(`unknown task operation ${id}`);
        if (isFinalTaskOp(row.state)) return this.report(id);
        if (signal?.aborted) return this.report(id);
        if (this.now() > row.deadline_at && row.state !== 'applying') {
          await this.store.change(
            id,
            { reason: 'deadline passed', updated_at: this.now() },
            this.h('needs_attention', `deadline passed in ${row.state}`),
          );
          continue;
        }
        const wait =
          row.state === 'create_pending'
            ? await this.create(row, signal)
            : row.state === 'applying'
              ? await this.apply(row, signal)
              : await this.observe(row, signal);
        if (wait > 0) await this.sleep(wait, signal);
      }
    } catch (err) {
      if (err instanceof Stopped) return this.report(id);
      throw err;
    }
  }

  private async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await this.o.clock.sleep(ms, signal);
    } catch {
      throw new Stopped();
    }
  }

  private async attention(row: TaskOpRow, reason: string, evidence: Record<string, unknown> = {}): Promise<number> {
    await this.store.change(row.task_op_id, { reason, updated_at: this.now() }, this.h('needs_attention', reason, evidence));
    return 0;
  }

  // ---- create ------------------------------------------------------------------------------------------------

  private async create(row: TaskOpRow, signal?: AbortSignal): Promise<number> {
    const attempt = row.create_attempts + 1;
    await this.store.change(row.task_op_id, { create_attempts: attempt, updated_at: this.now() });
    const a = await taskCall(
      this.http,
      {
        method: 'POST',
        path: '/v1/tasks',
        idempotencyKey: row.create_key,
        traceId: row.trace_id,
        body: { type: row.type, object_ref: row.object_ref, object_version: row.object_version, input: row.input },
      },
      signal,
    );
    if (signal?.aborted) throw new Stopped();
    if (a.kind === 'answer' && (a.status === 202 || a.status === 200) && typeof a.json?.task_id === 'string') {
      await this.store.change(
        row.task_op_id,
        { task_id: a.json.task_id, updated_at: this.now() },
        this.h('waiting', a.replayed ? 'create answered (replayed: reconciled by the same key)' : 'created', {
          task_id: a.json.task_id,
          create_key: row.create_key,
          attempt,
        }),
      );
      return 0;
    }
    // Ambiguous (no answer, 5xx), throttled or in flight: replay the same key later; the provider answers it once.
    const retryable = a.kind === 'no_answer' || a.status >= 500 || a.status === 429 || codeOf(a) === 'idempotency_request_in_progress';
    if (retryable) {
      if (attempt >= this.maxCreate) return this.attention(row, 'create unresolved after retries (same key every time)', { attempt });
      return Math.max(backoff(attempt - 1), a.kind === 'answer' ? (a.retryAfterMs ?? 0) : 0);
    }
    return this.attention(row, `create refused: ${a.status} ${codeOf(a) ?? ''}`.trim(), {
      status: a.status,
      code: codeOf(a),
      current_version: a.json?.current_version ?? null,
    });
  }

  // ---- observe -----------------------------------------------------------------------------------------------

  private async read(row: TaskOpRow, signal?: AbortSignal): Promise<TaskCallOutcome> {
    return taskCall(this.http, { method: 'GET', path: `/v1/tasks/${row.task_id}`, traceId: row.trace_id }, signal);
  }

  private async finishFromTask(row: TaskOpRow, task: RemoteTask, cause: string): Promise<boolean> {
    const map: Record<string, TaskOpState> = { applied: 'applied', rejected: 'rejected', failed: 'failed', apply_failed: 'apply_failed' };
    const to = map[task.state];
    if (!to) return false;
    await this.store.change(
      row.task_op_id,
      { application: task.application, reason: task.error?.code ?? null, updated_at: this.now() },
      this.h(to, cause, { task_state: task.state, application: task.application, review: task.review }),
    );
    return true;
  }

  private async observe(row: TaskOpRow, signal?: AbortSignal): Promise<number> {
    const a = await this.read(row, signal);
    if (signal?.aborted) throw new Stopped();
    if (a.kind === 'no_answer' || a.status >= 500 || a.status === 429) {
      const failures = row.read_failures + 1;
      if (failures >= this.maxReadFailures) return this.attention(row, 'task unreadable');
      await this.store.change(row.task_op_id, { read_failures: failures, updated_at: this.now() });
      return Math.max(backoff(failures - 1), a.kind === 'answer' ? (a.retryAfterMs ?? 0) : 0);
    }
    if (a.status !== 200) return this.attention(row, `task read refused: ${a.status} ${codeOf(a) ?? ''}`.trim());
    const task = a.json as RemoteTask;
    if (row.read_failures > 0) await this.store.change(row.task_op_id, { read_failures: 0 });
    if (await this.finishFromTask(row, task, `task is ${task.state}`)) return 0;
    const pv = task.result?.proposal.proposal_version ?? null;
    if (pv !== null && pv !== row.proposal_version) {
      // A new proposal (first draft or redraft): any approval we relied on is gone; wait for one of this version.
      await this.store.change(
        row.task_op_id,
        { proposal_version: pv, initiator: task.initiator, approval: null, updated_at: this.now() },
        this.h(
          'waiting',
          row.proposal_version === null
            ? `draft ready (proposal ${pv})`
            : `redraft seen (proposal ${row.proposal_version} → ${pv}): waiting for a new approval`,
          { proposal_version: pv, sha256: task.result!.proposal.sha256, task_state: task.state },
        ),
      );
    }
    // The policy decides whether there is an approval to apply under (the reference one: only a current one).
    const approval = this.policy.usableApproval(task, (await this.store.get(row.task_op_id))!);
    if (approval) {
      const cur = (await this.store.get(row.task_op_id))!;
      // The apply key is generated once and stored, in the same transaction as the decision, before any apply.
      const applyKey = cur.apply_key ?? newKey('tapply');
      await this.store.change(
        row.task_op_id,
        { approval, apply_key: applyKey, initiator: task.initiator, updated_at: this.now() },
        this.h(
          'applying',
          `approval by ${approval.reviewer} of proposal ${approval.proposal_version} (${approval.decision}) taken as current`,
          {
            approval,
            current: { proposal_version: pv, sha256: task.result?.proposal.sha256 ?? null, initiator: task.initiator, state: task.state },
            apply_key: applyKey,
          },
        ),
      );
      return 0;
    }
    // Drafting: honour Retry-After. Waiting for review (no Retry-After is given): poll at the review interval.
    return task.state === 'queued' || task.state === 'running'
      ? (a.retryAfterMs ?? this.reviewPollMs)
      : Math.max(a.retryAfterMs ?? 0, this.reviewPollMs);
  }

  // ---- apply -------------------------------------------------------------------------------------------------

  private async back(row: TaskOpRow, cause: string, evidence: Record<string, unknown>): Promise<number> {
    await this.store.change(row.task_op_id, { approval: null, updated_at: this.now() }, this.h('waiting', cause, evidence));
    return 0;
  }

  private async apply(row: TaskOpRow, signal?: AbortSignal): Promise<number> {
    const attempt = row.apply_attempts + 1;
    if (attempt > this.maxApply) return this.attention(row, 'apply unresolved after retries', { apply_key: row.apply_key });
    const key = this.policy.applyKey(row, attempt);
    await this.store.change(row.task_op_id, { apply_attempts: attempt, updated_at: this.now() });
    const a = await taskCall(
      this.http,
      { method: 'POST', path: `/v1/tasks/${row.task_id}/apply`, idempotencyKey: key, traceId: row.trace_id, body: {} },
      signal,
    );
    if (signal?.aborted) throw new Stopped();
    const ev = { apply_key: key, attempt, status: a.kind === 'answer' ? a.status : null, code: codeOf(a) };
    if (a.kind === 'no_answer' || a.status >= 500 || a.status === 429 || codeOf(a) === 'idempotency_request_in_progress') {
      if (this.policy.onAmbiguousApply(row) === 'assume_failed') {
        await this.store.change(
          row.task_op_id,
          { reason: 'apply answer lost (assumed failed)' },
          this.h('apply_failed', 'apply answer lost: assumed failed', ev),
        );
        return 0;
      }
      // Ambiguous: the change may have happened. Retry with the same key; a replay returns the application.
      await this.store.change(
        row.task_op_id,
        { updated_at: this.now() },
        this.h('applying', 'apply answer lost or ambiguous: retry with the same apply key', ev),
      );
      return Math.max(backoff(attempt - 1), a.kind === 'answer' ? (a.retryAfterMs ?? 0) : 0);
    }
    const code = codeOf(a);
    if (a.status === 200 && a.json?.state === 'applied') {
      return (await this.finishFromTask(
        row,
        a.json as RemoteTask,
        a.replayed ? 'applied (replayed answer to the same apply key)' : 'applied',
      ))
        ? 0
        : this.reviewPollMs;
    }
    if (code === 'already_applied') {
      // Applied by an earlier request: read the task and report its application.
      const r = await this.read(row, signal);
      const task = (r.kind === 'answer' && r.status === 200 ? r.json : a.json?.task) as RemoteTask | undefined;
      if (task && (await this.finishFromTask(row, task, 'already applied: reporting the application'))) return 0;
      return this.reviewPollMs;
    }
    if (code === 'apply_failed') {
      const task = a.json?.task as RemoteTask | undefined;
      if (task && (await this.finishFromTask(row, task, 'apply failed at the provider'))) return 0;
      await this.store.change(row.task_op_id, { reason: 'apply_failed' }, this.h('apply_failed', 'apply failed at the provider', ev));
      return 0;
    }
    if (code === 'approval_required' || code === 'stale_object_version') {
      return this.back(row, `apply refused (${code}): waiting for a current approval`, ev);
    }
    if (code === 'invalid_state') {
      const task = a.json?.task as RemoteTask | undefined;
      if (task && (await this.finishFromTask(row, task, 'apply refused: task is final'))) return 0;
      return this.back(row, 'apply refused (invalid_state)', ev);
    }
    return this.attention(row, `apply refused: ${a.status} ${code ?? ''}`.trim(), ev);
  }
}
