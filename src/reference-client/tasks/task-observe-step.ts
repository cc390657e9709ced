import { codeOf } from './http.js';
import type { RemoteTask } from './policy.js';
import { attention, entry, finishFromTask, newKey, readTask, retryDelay, Stopped, type TaskTurn } from './task-step-env.js';
import type { TaskOpRow } from './types.js';

/** Poll the task: report a final state, note a new proposal, and move to applying under a usable approval. */
export async function observe(w: TaskTurn, row: TaskOpRow, signal?: AbortSignal): Promise<number> {
  const a = await readTask(w, row, signal);
  if (signal?.aborted) throw new Stopped();
  if (a.kind === 'no_answer' || a.status >= 500 || a.status === 429) {
    const failures = row.read_failures + 1;
    if (failures >= w.maxReadFailures) return attention(w, 'task unreadable');
    await w.change({ read_failures: failures, updated_at: w.now() });
    return retryDelay(row, failures - 1, a.kind === 'answer' ? a.retryAfterMs : null);
  }
  if (a.status !== 200) return attention(w, `task read refused: ${a.status} ${codeOf(a) ?? ''}`.trim());
  const task = a.json as RemoteTask;
  if (row.read_failures > 0) await w.change({ read_failures: 0 });
  if (await finishFromTask(w, task, `task is ${task.state}`)) return 0;
  const pv = task.result?.proposal.proposal_version ?? null;
  if (pv !== null && pv !== row.proposal_version) {
    // A new proposal (first draft or redraft): any approval we relied on is gone; wait for one of this version.
    await w.change(
      { proposal_version: pv, initiator: task.initiator, approval: null, updated_at: w.now() },
      entry(
        w,
        'waiting',
        row.proposal_version === null
          ? `draft ready (proposal ${pv})`
          : `redraft seen (proposal ${row.proposal_version} → ${pv}): waiting for a new approval`,
        { proposal_version: pv, sha256: task.result!.proposal.sha256, task_state: task.state },
      ),
    );
  }
  // The policy decides whether there is an approval to apply under (the reference one: only a current one).
  const approval = w.policy.usableApproval(task, (await w.store.get(row.task_op_id))!);
  if (approval) {
    const cur = (await w.store.get(row.task_op_id))!;
    // The apply key is generated once and stored, in the same transaction as the decision, before any apply.
    const applyKey = cur.apply_key ?? newKey('tapply');
    await w.change(
      { approval, apply_key: applyKey, initiator: task.initiator, updated_at: w.now() },
      entry(
        w,
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
    ? (a.retryAfterMs ?? w.reviewPollMs)
    : Math.max(a.retryAfterMs ?? 0, w.reviewPollMs);
}
