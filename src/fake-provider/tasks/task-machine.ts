import type { Principal } from '../../contract/principals.js';
import { isFinalTaskState, type ReviewBody, type TaskState } from '../../contract/tasks.js';
import type { TaskRow } from './model.js';

/**
 * The task state machine as pure functions: which transitions exist, what a review or an apply may do from a given
 * state, and when the proposal must be redrafted. No I/O; the service applies the answers.
 */
export const TASK_TRANSITIONS: Record<TaskState, readonly TaskState[]> = {
  queued: ['running'],
  running: ['awaiting_review', 'failed'],
  // awaiting_review → awaiting_review: a redraft (the object changed).
  awaiting_review: ['approved', 'rejected', 'awaiting_review'],
  // approved → awaiting_review: revoked, redrafted, or the approval lapsed.
  approved: ['applying', 'awaiting_review'],
  applying: ['applied', 'apply_failed'],
  applied: [],
  rejected: [],
  failed: [],
  apply_failed: [],
};

export function canTransition(from: TaskState, to: TaskState): boolean {
  return TASK_TRANSITIONS[from].includes(to);
}

/** Redraft rule: a change of the object redoes the proposal of tasks in these states only. */
export function needsRedraft(state: TaskState): boolean {
  return state === 'awaiting_review' || state === 'approved';
}

/** The time-driven step due next: queued → running at half of draft_ms, → outcome at draft_ms. */
export function nextDraftStep(t: Pick<TaskRow, 'state' | 'created_at' | 'behavior'>): { at: number; to: TaskState } | null {
  const half = t.created_at + Math.floor(t.behavior.draft_ms / 2);
  if (t.state === 'queued') return { at: half, to: 'running' };
  if (t.state === 'running') return { at: t.created_at + t.behavior.draft_ms, to: t.behavior.outcome };
  return null;
}

export type Refusal = { ok: false; status: 403 | 409; code: string; detail: string };
export type ReviewOutcome = { ok: true; to: TaskState; decision: 'approved' | 'rejected' | 'revoked' } | Refusal;

/** What a review decision does, checked in the order of tasks-api.md: role, own task, state, proposal version. */
export function reviewOutcome(t: Pick<TaskRow, 'state' | 'initiator' | 'result'>, reviewer: Principal, body: ReviewBody): ReviewOutcome {
  if (!reviewer.roles.includes('reviewer'))
    return { ok: false, status: 403, code: 'forbidden_role', detail: 'reviewing needs the reviewer role' };
  if (reviewer.subject === t.initiator) {
    return {
      ok: false,
      status: 403,
      code: 'self_review_forbidden',
      detail: `${reviewer.subject} initiated this task and may not review it`,
    };
  }
  const current = t.result?.proposal.proposal_version;
  if (current === undefined || isFinalTaskState(t.state)) {
    return { ok: false, status: 409, code: 'invalid_state', detail: `the task is ${t.state}; there is nothing to review` };
  }
  if (body.proposal_version !== current) {
    return {
      ok: false,
      status: 409,
      code: 'stale_proposal',
      detail: `proposal_version ${body.proposal_version} is not the current one (${current})`,
    };
  }
  if (body.decision === 'revoke') {
    if (t.state !== 'approved')
      return {
        ok: false,
        status: 409,
        code: 'invalid_state',
        detail: `only an approved task can have its approval revoked; the task is ${t.state}`,
      };
    return { ok: true, to: 'awaiting_review', decision: 'revoked' };
  }
  if (t.state !== 'awaiting_review')
    return { ok: false, status: 409, code: 'invalid_state', detail: `the task is ${t.state}, not awaiting_review` };
  return body.decision === 'approve'
    ? { ok: true, to: 'approved', decision: 'approved' }
    : { ok: true, to: 'rejected', decision: 'rejected' };
}

export interface ApplyContext {
  /** The object's version now (undefined: it is gone). */
  objectVersion: number | undefined;
  /** Whether the approver holds the reviewer role now. */
  approverIsReviewer: boolean;
  /** SHA-256 of the canonical proposal recomputed now. */
  proposalSha: string | null;
}

export type ApplyGate =
  | { ok: true }
  | {
      ok: false;
      code: 'already_applied' | 'invalid_state' | 'approval_required' | 'stale_object_version';
      detail: string;
      lapse?: 'approver_lost_role' | 'approval_mismatch';
      redraft?: boolean;
    };

/** The checks made at the moment of applying (tasks-api.md, Apply), in order. */
export function applyGate(t: TaskRow, ctx: ApplyContext): ApplyGate {
  if (t.state === 'applied') return { ok: false, code: 'already_applied', detail: 'the change of this task was already applied' };
  if (isFinalTaskState(t.state)) return { ok: false, code: 'invalid_state', detail: `the task is ${t.state}; nothing can be applied` };
  if (t.state !== 'approved') {
    if (t.state === 'awaiting_review' && t.lapse_reason === 'object_changed') {
      return {
        ok: false,
        code: 'stale_object_version',
        detail: 'the object changed after the approval; the task was redrafted and needs a new approval',
      };
    }
    return { ok: false, code: 'approval_required', detail: `the task is ${t.state}; it needs a current approval` };
  }
  const p = t.result?.proposal;
  const r = t.review;
  if (!p || !r || r.decision !== 'approved' || r.proposal_version !== p.proposal_version || r.proposal_sha256 !== p.sha256) {
    return { ok: false, code: 'approval_required', detail: 'the approval does not cover the current proposal', lapse: 'approval_mismatch' };
  }
  if (!ctx.approverIsReviewer) {
    return {
      ok: false,
      code: 'approval_required',
      detail: `the approver ${r.reviewer} no longer holds the reviewer role; the approval lapsed`,
      lapse: 'approver_lost_role',
    };
  }
  if (ctx.objectVersion !== p.base_version) {
    return {
      ok: false,
      code: 'stale_object_version',
      detail: `the object is at version ${ctx.objectVersion ?? 'none'}, the proposal was made for ${p.base_version}`,
      redraft: true,
    };
  }
  if (ctx.proposalSha !== p.sha256)
    return { ok: false, code: 'approval_required', detail: 'the proposal changed since it was approved', lapse: 'approval_mismatch' };
  return { ok: true };
}
