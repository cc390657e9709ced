import type { ReliedApproval, TaskOpRow } from './types.js';

/** The task as `GET /v1/tasks/{id}` shows it (only the fields the workflow reads). */
export interface RemoteTask {
  task_id: string;
  state: string;
  initiator: string;
  result: { proposal: { proposal_version: number; sha256: string } } | null;
  review: { decision: string; reviewer: string; proposal_version: number; proposal_sha256: string; at: string } | null;
  application: { applied_at: string; new_version: number; idempotency_key: string } | null;
  error: { code: string; message: string } | null;
}

/**
 * The two decisions the safety of applying rests on, kept apart so that tests can swap in a broken one and watch
 * the conformance judge catch it. The reference client uses `REFERENCE_POLICY`.
 */
export interface TaskPolicy {
  /** The approval to apply under, or null when there is no usable one now. */
  usableApproval(task: RemoteTask, row: TaskOpRow): ReliedApproval | null;
  /** The Idempotency-Key of this apply attempt. */
  applyKey(row: TaskOpRow, attempt: number): string;
  /** What an apply without an answer (lost, timed out, 5xx) means. The reference: ambiguous, retry with the same key. */
  onAmbiguousApply(row: TaskOpRow): 'retry' | 'assume_failed';
}

/**
 * Only a current approval counts: state `approved`, decision `approved`, bound to the current proposal's version and
 * SHA-256, by someone other than the initiator. The apply key is the stored one, always.
 */
export const REFERENCE_POLICY: TaskPolicy = {
  usableApproval(task) {
    const p = task.result?.proposal;
    const r = task.review;
    if (task.state !== 'approved' || !p || !r) return null;
    if (r.decision !== 'approved') return null;
    if (r.proposal_version !== p.proposal_version || r.proposal_sha256 !== p.sha256) return null;
    if (r.reviewer === task.initiator) return null;
    return { decision: r.decision, reviewer: r.reviewer, proposal_version: r.proposal_version, proposal_sha256: r.proposal_sha256 };
  },
  applyKey(row) {
    if (!row.apply_key) throw new Error(`no stored apply key for ${row.task_op_id}`);
    return row.apply_key;
  },
  onAmbiguousApply() {
    return 'retry';
  },
};
