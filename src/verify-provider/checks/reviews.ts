import { brief, type Answer } from '../http.js';
import { expectAnswer, expectProblem, fail, needToken } from '../helpers.js';
import { approve, changeObject, review, taskAwaitingReview, withRoles } from '../task-helpers.js';
import type { Check, CheckContext } from '../types.js';

async function stateOf(ctx: CheckContext, id: string, token?: string): Promise<string> {
  return (await ctx.http.call('GET', `/v1/tasks/${id}`, { token })).json?.state;
}

export const reviewForeignTenant: Check = {
  name: 'task.review-foreign-tenant',
  api: 'tasks',
  expects: ['404'],
  description: 'an approval by a user of another tenant is 404 and changes nothing',
  async run(ctx, ev) {
    const other = needToken(ctx.opts.otherTenantToken, '--other-tenant-token');
    const t = await taskAwaitingReview(ctx, 'foreign', ev);
    const a = await review(ctx, t.id, other, 'approve', t.task.result.proposal.proposal_version);
    ev.push(`approve as --other-tenant-token → ${brief(a)}`);
    if (a.status === 403) fail('403 tells another tenant the task exists; expected 404');
    expectAnswer(ctx, a, this.expects!, 'approval by another tenant');
    const s = await stateOf(ctx, t.id);
    if (s !== 'awaiting_review') fail(`the task is ${s} after a foreign approval`);
    return '404; the task still awaits review';
  },
};

export const reviewBySubmitter: Check = {
  name: 'task.review-by-submitter',
  api: 'tasks',
  expects: ['403 forbidden_role'],
  description: 'an approval by a submitter without the reviewer role is 403 forbidden_role',
  async run(ctx, ev) {
    const t2 = needToken(ctx.opts.token2, '--token-2');
    const t = await taskAwaitingReview(ctx, 'submitter-review', ev);
    const a = await review(ctx, t.id, t2, 'approve', t.task.result.proposal.proposal_version);
    ev.push(`approve as --token-2 (a submitter) → ${brief(a)}`);
    expectAnswer(ctx, a, this.expects!, 'approval by a submitter');
    const s = await stateOf(ctx, t.id);
    if (s !== 'awaiting_review') fail(`the task is ${s} after a refused approval`);
    return '403 forbidden_role';
  },
};

export const reviewByInitiator: Check = {
  name: 'task.review-by-initiator',
  api: 'tasks',
  expects: ['403 forbidden_role', '403 self_review_forbidden'],
  description:
    "the task's initiator may not approve it: 403 (forbidden_role as a mere submitter, self_review_forbidden when also a reviewer)",
  async run(ctx, ev) {
    const t = await taskAwaitingReview(ctx, 'self-review', ev);
    const pv = t.task.result.proposal.proposal_version;
    const a = await review(ctx, t.id, ctx.opts.token, 'approve', pv);
    ev.push(`approve as the initiator (--token) → ${brief(a)}`);
    expectAnswer(ctx, a, this.expects!, 'approval by the initiator');
    // With the reviewer role too, the only reason left to refuse is self-review: a token of the plan that holds both
    // roles initiates and approves its own task, or the control API gives --token the reviewer role for a moment.
    const both = ctx.opts.bothRolesToken;
    let b: Answer | undefined;
    if (both) {
      const own = await taskAwaitingReview(ctx, 'self-review-both', ev, both);
      b = await review(ctx, own.id, both, 'approve', own.task.result.proposal.proposal_version);
      ev.push(`a subject holding both roles approves its own task ${own.id} → ${brief(b)}`);
      if ((await stateOf(ctx, own.id, both)) !== 'awaiting_review')
        fail(`task ${own.id} left awaiting_review after a refused self-approval`);
    } else if (ctx.control) {
      b = await withRoles(ctx, ctx.opts.token, ['submitter', 'reviewer'], () => review(ctx, t.id, ctx.opts.token, 'approve', pv));
      ev.push(`approve as the initiator holding the reviewer role → ${brief(b)}`);
    } else {
      ev.push('self_review_forbidden not checked: the plan names no subject holding both roles, and there is no control API');
    }
    if (b) {
      expectProblem(b, 403, 'self_review_forbidden', 'approval by the initiator who is also a reviewer');
      ctx.facts.expected = '403 self_review_forbidden';
      ctx.facts.got = brief(b);
    }
    const s = await stateOf(ctx, t.id);
    if (s !== 'awaiting_review') fail(`the task is ${s} after a refused self-approval`);
    return b ? '403 self_review_forbidden' : `${brief(a)} (self_review_forbidden not checked: no subject with both roles)`;
  },
};

export const reviewStaleProposal: Check = {
  name: 'task.review-stale-proposal',
  api: 'tasks',
  expects: ['409 stale_proposal'],
  description: 'approving a proposal version that is no longer current is 409 stale_proposal; the current one can be approved',
  async run(ctx, ev) {
    needToken(ctx.opts.reviewerToken, '--reviewer-token');
    const t = await taskAwaitingReview(ctx, 'stale-proposal', ev);
    const pv = t.task.result.proposal.proposal_version;
    await changeObject(ctx, t.ref, { amount: 7 });
    const now = (await ctx.http.call('GET', `/v1/tasks/${t.id}`)).json;
    const pv2 = now?.result?.proposal?.proposal_version;
    ev.push(`object changed; task ${now?.state}, proposal ${pv} → ${pv2}`);
    if (!(pv2 > pv)) fail('the proposal was not redrafted after the object changed');
    const a = await review(ctx, t.id, ctx.opts.reviewerToken!, 'approve', pv);
    ev.push(`approve proposal ${pv} → ${brief(a)}`);
    expectAnswer(ctx, a, this.expects!, 'approval of a stale proposal');
    const s = await stateOf(ctx, t.id);
    if (s !== 'awaiting_review') fail(`the task is ${s} after a stale approval`);
    const ok = await approve(ctx, t.id, pv2);
    if (ok.review?.proposal_version !== pv2 || ok.review?.proposal_sha256 !== now.result.proposal.sha256)
      fail('the approval is not bound to the current proposal version and SHA-256');
    ev.push(`approve proposal ${pv2} → approved, bound to ${ok.review.proposal_sha256.slice(0, 12)}…`);
    return '409 stale_proposal; the current proposal was approved and bound to its SHA-256';
  },
};
