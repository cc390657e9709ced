import {
  createTaskClient,
  newKey,
  REFERENCE_POLICY,
  type ReliedApproval,
  type TaskClientOptions,
  type TaskPolicy,
} from '../../../src/reference-client/tasks/index.js';
import type { TaskClientFactory } from '../../../src/conformance/tasks/index.js';

/** The reference task client, optionally with options (a broken policy) swapped in. */
export function referenceFactory(extra: Partial<TaskClientOptions> = {}): TaskClientFactory {
  return (env) => createTaskClient({ ...env, workerId: 'task-worker-1', ...extra });
}

/** Deliberately broken task clients: the reference client with one classic mistake in its policy. */
export const BROKEN: Record<string, { invariant: 'T1' | 'T2' | 'T3' | 'T4' | 'T5'; scenario: string; policy: () => TaskPolicy }> = {
  // Applies as soon as it has a task, without waiting for any approval.
  'apply-without-approval': {
    invariant: 'T2',
    scenario: 'no-approval-yet',
    policy: () => ({
      ...REFERENCE_POLICY,
      usableApproval: (t) => ({
        decision: 'approved',
        reviewer: 'nobody',
        proposal_version: t.result?.proposal.proposal_version ?? 0,
        proposal_sha256: t.result?.proposal.sha256 ?? '',
      }),
    }),
  },
  // A fresh apply key on every attempt, so a retry after a lost answer is a second apply.
  'new-apply-key-per-retry': {
    invariant: 'T5',
    scenario: 'apply-lost-answer',
    policy: () => ({ ...REFERENCE_POLICY, applyKey: () => newKey('tapply') }),
  },
  // Reuses the create's Idempotency-Key for apply.
  'create-key-for-apply': {
    invariant: 'T5',
    scenario: 'apply-lost-answer',
    policy: () => ({ ...REFERENCE_POLICY, applyKey: (row) => row.create_key }),
  },
  // Remembers the first approval it saw and keeps applying under it after a redraft.
  'old-approval-after-redraft': {
    invariant: 'T3',
    scenario: 'redraft-after-approval',
    policy: () => {
      const seen = new Map<string, ReliedApproval>();
      return {
        ...REFERENCE_POLICY,
        usableApproval: (t, row) => {
          const now = REFERENCE_POLICY.usableApproval(t, row);
          if (now && !seen.has(t.task_id)) seen.set(t.task_id, now);
          return seen.get(t.task_id) ?? null;
        },
      };
    },
  },
  // Takes any review as an approval: a revoked one too.
  'any-review-counts': {
    invariant: 'T4',
    scenario: 'revoked-approval',
    policy: () => ({
      ...REFERENCE_POLICY,
      usableApproval: (t) =>
        t.review
          ? {
              decision: t.review.decision,
              reviewer: t.review.reviewer,
              proposal_version: t.review.proposal_version,
              proposal_sha256: t.review.proposal_sha256,
            }
          : null,
    }),
  },
  // Treats a lost apply answer as a failure and reports apply_failed, although the change was made.
  'lost-apply-is-failure': {
    invariant: 'T1',
    scenario: 'apply-lost-answer',
    policy: () => ({ ...REFERENCE_POLICY, onAmbiguousApply: () => 'assume_failed' }),
  },
};
