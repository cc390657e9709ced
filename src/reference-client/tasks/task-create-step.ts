import { codeOf } from './http.js';
import { attention, entry, retryDelay, Stopped, type TaskTurn } from './task-step-env.js';
import type { TaskOpRow } from './types.js';

/** Create the task: one key, replayed on every retry; an ambiguous answer is resolved by replaying it. */
export async function create(w: TaskTurn, row: TaskOpRow, signal?: AbortSignal): Promise<number> {
  const attempt = row.create_attempts + 1;
  await w.change({ create_attempts: attempt, updated_at: w.now() });
  const a = await w.send(
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
    await w.change(
      { task_id: a.json.task_id, updated_at: w.now() },
      entry(w, 'waiting', a.replayed ? 'create answered (replayed: reconciled by the same key)' : 'created', {
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
    if (attempt >= w.maxCreate) return attention(w, 'create unresolved after retries (same key every time)', { attempt });
    return retryDelay(row, attempt - 1, a.kind === 'answer' ? a.retryAfterMs : null);
  }
  return attention(w, `create refused: ${a.status} ${codeOf(a) ?? ''}`.trim(), {
    status: a.status,
    code: codeOf(a),
    current_version: a.json?.current_version ?? null,
  });
}
