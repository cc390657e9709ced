import { brief } from '../http.js';
import { expectAnswer, expectProblem, expectStatus, fail, needControl, sameBody, withFaults } from '../helpers.js';
import { approve, auditLines, objectVersion, taskAwaitingReview } from '../task-helpers.js';
import type { Check } from '../types.js';
import { readApplication } from '../audit-application.js';

/** Whether a problem carries the application record (its `new_version` and key), at any depth. */
function carriesApplication(problem: unknown, application: Record<string, unknown>): boolean {
  if (problem === null || typeof problem !== 'object') return false;
  const o = problem as Record<string, unknown>;
  if (o.new_version === application.new_version && (o.idempotency_key ?? application.idempotency_key) === application.idempotency_key)
    return true;
  return Object.values(o).some((v) => carriesApplication(v, application));
}

export const applyWithoutApproval: Check = {
  name: 'task.apply-without-approval',
  api: 'tasks',
  expects: ['409 approval_required'],
  description: 'applying a task that is not approved is 409 approval_required; the object does not change',
  async run(ctx, ev) {
    const t = await taskAwaitingReview(ctx, 'no-approval', ev);
    const a = await ctx.http.call('POST', `/v1/tasks/${t.id}/apply`, { headers: { 'idempotency-key': ctx.key('noappr') } });
    ev.push(`apply → ${brief(a)}`);
    expectAnswer(ctx, a, this.expects!, 'apply without approval');
    const v = await objectVersion(ctx, t.ref);
    if (v !== t.version) fail(`the object changed (v${t.version} → v${v})`);
    const k = await ctx.http.call('POST', `/v1/tasks/${t.id}/apply`);
    ev.push(`apply without Idempotency-Key → ${brief(k)}`);
    expectProblem(k, 400, 'idempotency_key_missing', 'apply without a key');
    return '409 approval_required; 400 without a key';
  },
};

export const applyRetry: Check = {
  name: 'task.apply-retry',
  api: 'tasks',
  description:
    'apply retried: the same key gives the same answer (replayed), another key 409 already_applied with the application; the object version rose once and the audit shows one application',
  async run(ctx, ev) {
    const t = await taskAwaitingReview(ctx, 'apply-retry', ev);
    await approve(ctx, t.id, t.task.result.proposal.proposal_version);
    const key = ctx.key('apply');
    const otherKey = ctx.key('apply-other');
    const a = await ctx.http.call('POST', `/v1/tasks/${t.id}/apply`, { headers: { 'idempotency-key': key } });
    const b = await ctx.http.call('POST', `/v1/tasks/${t.id}/apply`, { headers: { 'idempotency-key': key } });
    const c = await ctx.http.call('POST', `/v1/tasks/${t.id}/apply`, { headers: { 'idempotency-key': otherKey } });
    ev.push(
      `apply → ${brief(a)} ${a.json?.state} new_version=${a.json?.application?.new_version}`,
      `same key → ${brief(b)}`,
      `other key → ${brief(c)}`,
    );
    expectStatus(a, 200, 'apply');
    if (a.json?.state !== 'applied' || a.json?.application?.new_version !== t.version + 1)
      fail(`apply did not leave the task applied at version ${t.version + 1}`);
    if (b.status !== 200 || !sameBody(a, b) || b.headers.get('idempotent-replayed') !== 'true')
      fail('the same key did not replay the same answer with Idempotent-Replayed: true');
    const p = expectProblem(c, 409, 'already_applied', 'apply with another key');
    // "with the application record": where in the problem the spec does not say (top level, or within the task).
    if (!carriesApplication(p, a.json.application)) fail('409 already_applied does not carry the application record');
    const v = await objectVersion(ctx, t.ref);
    ev.push(`object v${t.version} → v${v}`);
    ctx.facts.expected = '200, 200 [Idempotent-Replayed], 409 already_applied';
    ctx.facts.got = [a, b, c].map(brief).join(', ');
    if (v !== t.version + 1) fail(`the object version rose by ${v - t.version}, not once`);
    // Seed 004: a repeated approved apply shows as one logical operation in the audit.
    const audit = await auditLines(ctx, t.id);
    if (audit.status !== 200) fail(`GET /v1/tasks/${t.id}/audit answered ${audit.status || 'nothing'}; tasks-api.md requires the audit`);
    const app = readApplication(audit.events, key, [otherKey], ctx.opts.plan?.audit.application_event);
    ev.push(
      `audit: ${audit.events.length} events; the application recognised ${app.how}: ${app.events.length} event(s) for 3 apply requests (same key twice, another key once)`,
    );
    if (app.fault) fail(`${app.fault}; expected one logical application, under the key it was applied with`);
    return 'applied once; replayed; already_applied with the record; one logical application in the audit';
  },
};

export const applyLostAnswer: Check = {
  name: 'task.lost-apply-answer',
  api: 'tasks',
  description: 'an apply whose answer is lost is applied once; the retry with the same key returns it (needs fault injection)',
  async run(ctx, ev) {
    needControl(ctx);
    const t = await taskAwaitingReview(ctx, 'apply-lost', ev);
    await approve(ctx, t.id, t.task.result.proposal.proposal_version);
    const key = ctx.key('apply-lost');
    const lost = await withFaults(ctx, [{ on: 'apply', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }], () =>
      ctx.http.try('POST', `/v1/tasks/${t.id}/apply`, { headers: { 'idempotency-key': key } }),
    );
    ev.push(`apply (lose_response) → ${lost.ok ? brief(lost.answer) : `lost: ${lost.error}`}`);
    if (lost.ok) fail(`the lose_response fault on apply did not lose the answer (got ${lost.answer.status})`);
    const b = await ctx.http.call('POST', `/v1/tasks/${t.id}/apply`, { headers: { 'idempotency-key': key } });
    ev.push(`retry → ${brief(b)} ${b.json?.state}`);
    expectStatus(b, 200, 'retry of the lost apply');
    ctx.facts.expected = '200 [Idempotent-Replayed]';
    ctx.facts.got = brief(b);
    if (b.json?.state !== 'applied' || b.headers.get('idempotent-replayed') !== 'true') fail('the retry did not replay the applied answer');
    const v = await objectVersion(ctx, t.ref);
    if (v !== t.version + 1) fail(`the object version rose by ${v - t.version}, not once`);
    return 'applied once; the retry returned the answer';
  },
};
