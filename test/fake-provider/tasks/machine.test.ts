import { describe, expect, it } from 'vitest';
import {
  applyGate,
  canTransition,
  makeDraft,
  mergePatch,
  needsRedraft,
  proposalSha,
  reviewOutcome,
  TASK_TRANSITIONS,
  type TaskRow,
} from '../../../src/fake-provider/tasks/index.js';
import { TASK_STATES } from '../../../src/contract/index.js';

const obj = { tenant: 'acme', object_ref: 'o', version: 3, data: { a: 1, b: { c: 2 } }, updated_at: 0 };

function task(over: Partial<TaskRow> = {}): TaskRow {
  const made = makeDraft(obj, { changes: { a: 2 } }, 1);
  return {
    task_id: 't',
    tenant: 'acme',
    type: 'propose_update',
    state: 'awaiting_review',
    object_ref: 'o',
    object_version: 3,
    input: { changes: { a: 2 } },
    initiator: 'agent-1',
    idempotency_key: 'k',
    trace_id: null,
    behavior: { draft_ms: 0, outcome: 'awaiting_review', apply: 'ok' },
    created_at: 0,
    updated_at: 0,
    next_step_at: null,
    result: made,
    review: null,
    application: null,
    error: null,
    lapse_reason: null,
    ...over,
  };
}

describe('task machine (pure)', () => {
  it('final states have no way out; only awaiting_review and approved are redrafted', () => {
    for (const s of ['applied', 'rejected', 'failed', 'apply_failed'] as const) expect(TASK_TRANSITIONS[s]).toEqual([]);
    expect(TASK_STATES.filter(needsRedraft)).toEqual(['awaiting_review', 'approved']);
    expect(canTransition('approved', 'applied')).toBe(false);
    expect(canTransition('applying', 'applied')).toBe(true);
  });

  it('review order: role, own task, state, proposal version', () => {
    const rev = { tenant: 'acme', subject: 'r', roles: ['reviewer' as const] };
    expect(reviewOutcome(task(), { ...rev, roles: ['submitter'] }, { decision: 'approve', proposal_version: 1 })).toMatchObject({
      code: 'forbidden_role',
    });
    expect(reviewOutcome(task(), { ...rev, subject: 'agent-1' }, { decision: 'approve', proposal_version: 1 })).toMatchObject({
      code: 'self_review_forbidden',
    });
    expect(reviewOutcome(task({ state: 'applied' }), rev, { decision: 'approve', proposal_version: 1 })).toMatchObject({
      code: 'invalid_state',
    });
    expect(reviewOutcome(task(), rev, { decision: 'approve', proposal_version: 2 })).toMatchObject({ code: 'stale_proposal' });
    expect(reviewOutcome(task(), rev, { decision: 'revoke', proposal_version: 1 })).toMatchObject({ code: 'invalid_state' });
    expect(reviewOutcome(task(), rev, { decision: 'approve', proposal_version: 1 })).toEqual({
      ok: true,
      to: 'approved',
      decision: 'approved',
    });
    expect(reviewOutcome(task({ state: 'approved' }), rev, { decision: 'revoke', proposal_version: 1 })).toEqual({
      ok: true,
      to: 'awaiting_review',
      decision: 'revoked',
    });
  });

  it('apply gate: approval bound to version and SHA, approver still a reviewer, object at base_version', () => {
    const t = task({ state: 'approved' });
    const p = t.result!.proposal;
    t.review = { decision: 'approved', reviewer: 'r', proposal_version: 1, proposal_sha256: p.sha256, at: '' };
    const ctx = { objectVersion: 3, approverIsReviewer: true, proposalSha: proposalSha(p) };
    expect(applyGate(t, ctx)).toEqual({ ok: true });
    expect(applyGate(t, { ...ctx, approverIsReviewer: false })).toMatchObject({ code: 'approval_required', lapse: 'approver_lost_role' });
    expect(applyGate(t, { ...ctx, objectVersion: 4 })).toMatchObject({ code: 'stale_object_version', redraft: true });
    expect(applyGate(t, { ...ctx, proposalSha: 'x' })).toMatchObject({ code: 'approval_required' });
    expect(applyGate({ ...t, review: { ...t.review, proposal_sha256: 'other' } }, ctx)).toMatchObject({ code: 'approval_required' });
    expect(applyGate(task(), ctx)).toMatchObject({ code: 'approval_required' });
    expect(applyGate(task({ lapse_reason: 'object_changed' }), ctx)).toMatchObject({ code: 'stale_object_version' });
    expect(applyGate(task({ state: 'applied' }), ctx)).toMatchObject({ code: 'already_applied' });
  });

  it('drafts are deterministic and hash their canonical JSON without sha256', () => {
    const a = makeDraft(obj, { changes: { a: 2 } }, 1);
    expect(makeDraft(obj, { changes: { a: 2 } }, 1)).toEqual(a);
    expect(a.proposal.sha256).toBe(proposalSha(a.proposal));
    expect(makeDraft(obj, { changes: { a: 2 } }, 2).proposal.sha256).not.toBe(a.proposal.sha256);
    expect(a.draft.sources).toEqual([{ ref: 'o', version: 3, excerpt: '{"a":1,"b":{"c":2}}' }]);
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: 1 }, f: [1] })).toEqual({ a: 1, b: { d: 3, e: 1 }, f: [1] });
  });
});
