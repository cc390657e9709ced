import { codeOf } from './http.js';
import type { RemoteTask } from './policy.js';
import { attention, entry, finishFromTask, readTask, retryDelay, Stopped, type TaskTurn } from './task-step-env.js';
import type { TaskOpRow } from './types.js';

/** Apply with the stored apply key; an ambiguous answer is retried with the same key, a refusal sends the task back to waiting. */
export async function back(w: TaskTurn, cause: string, evidence: Record<string, unknown>): Promise<number> {
  await w.change({ approval: null, updated_at: w.now() }, entry(w, 'waiting', cause, evidence));
  return 0;
}

export async function apply(w: TaskTurn, row: TaskOpRow, signal?: AbortSignal): Promise<number> {
  const attempt = row.apply_attempts + 1;
  if (attempt > w.maxApply) return attention(w, 'apply unresolved after retries', { apply_key: row.apply_key });
  const key = w.policy.applyKey(row, attempt);
  await w.change({ apply_attempts: attempt, updated_at: w.now() });
  const a = await w.send(
    { method: 'POST', path: `/v1/tasks/${row.task_id}/apply`, idempotencyKey: key, traceId: row.trace_id, body: {} },
    signal,
  );
  if (signal?.aborted) throw new Stopped();
  const ev = { apply_key: key, attempt, status: a.kind === 'answer' ? a.status : null, code: codeOf(a) };
  if (a.kind === 'no_answer' || a.status >= 500 || a.status === 429 || codeOf(a) === 'idempotency_request_in_progress') {
    if (w.policy.onAmbiguousApply(row) === 'assume_failed') {
      await w.change({ reason: 'apply answer lost (assumed failed)' }, entry(w, 'apply_failed', 'apply answer lost: assumed failed', ev));
      return 0;
    }
    // Ambiguous: the change may have happened. Retry with the same key; a replay returns the application.
    await w.change({ updated_at: w.now() }, entry(w, 'applying', 'apply answer lost or ambiguous: retry with the same apply key', ev));
    return retryDelay(row, attempt - 1, a.kind === 'answer' ? a.retryAfterMs : null);
  }
  const code = codeOf(a);
  if (a.status === 200 && a.json?.state === 'applied') {
    return (await finishFromTask(w, a.json as RemoteTask, a.replayed ? 'applied (replayed answer to the same apply key)' : 'applied'))
      ? 0
      : w.reviewPollMs;
  }
  if (code === 'already_applied') {
    // Applied by an earlier request: read the task and report its application.
    const r = await readTask(w, row, signal);
    const task = (r.kind === 'answer' && r.status === 200 ? r.json : a.json?.task) as RemoteTask | undefined;
    if (task && (await finishFromTask(w, task, 'already applied: reporting the application'))) return 0;
    return w.reviewPollMs;
  }
  if (code === 'apply_failed') {
    const task = a.json?.task as RemoteTask | undefined;
    if (task && (await finishFromTask(w, task, 'apply failed at the provider'))) return 0;
    await w.change({ reason: 'apply_failed' }, entry(w, 'apply_failed', 'apply failed at the provider', ev));
    return 0;
  }
  if (code === 'approval_required' || code === 'stale_object_version') {
    return back(w, `apply refused (${code}): waiting for a current approval`, ev);
  }
  if (code === 'invalid_state') {
    const task = a.json?.task as RemoteTask | undefined;
    if (task && (await finishFromTask(w, task, 'apply refused: task is final'))) return 0;
    return back(w, 'apply refused (invalid_state)', ev);
  }
  return attention(w, `apply refused: ${a.status} ${code ?? ''}`.trim(), ev);
}
