import { isoTime } from '../../lib/clock.js';
import type { Principal } from '../../contract/principals.js';
import { mergePatch, proposalSha } from './draft.js';
import type { TaskRow } from './model.js';
import { redraft, redraftOpen } from './redraft.js';
import type { TaskContext } from './task-context.js';
import { applyGate, type ApplyGate } from './task-machine.js';

export type ApplyOutcome =
  | { kind: 'applied'; task: TaskRow }
  | { kind: 'apply_failed'; task: TaskRow }
  | { kind: 'refused'; gate: Extract<ApplyGate, { ok: false }>; task: TaskRow; currentVersion: number | null };

/**
 * Apply under the checks of the moment, in one transaction: the object changes once, with its record. A refusal is
 * recorded too, and may lapse the approval (the approver lost the role, the proposal changed) or redraft the task
 * (the object moved on since the proposal was drafted).
 */
export function applyChange(
  ctx: TaskContext,
  isReviewerNow: (tenant: string, subject: string) => boolean,
  p: Principal,
  taskId: string,
  key: string,
): ApplyOutcome {
  const { tasks, objects, log } = ctx;
  return ctx.db.transaction((): ApplyOutcome => {
    const t = tasks.get(taskId)!;
    const at = ctx.now();
    const object = objects.get(t.tenant, t.object_ref);
    const proposal = t.result?.proposal ?? null;
    const gate = applyGate(t, {
      objectVersion: object?.version,
      approverIsReviewer: t.review ? isReviewerNow(t.tenant, t.review.reviewer) : false,
      proposalSha: proposal ? proposalSha(proposal) : null,
    });
    if (!gate.ok) {
      log.record(t.task_id, at, 'apply_refused', p.subject, {
        idempotency_key: key,
        code: gate.code,
        reason: gate.detail,
        object_version: object?.version ?? null,
      });
      if (gate.lapse && t.review) {
        log.record(t.task_id, at, 'approval_lapsed', 'provider', {
          reviewer: t.review.reviewer,
          proposal_version: t.review.proposal_version,
          reason: gate.detail,
        });
        t.review = null;
        t.lapse_reason = gate.lapse === 'approver_lost_role' ? 'approver_lost_role' : null;
        log.move(t, 'awaiting_review', `approval lapsed at apply: ${gate.detail}`, 'provider', at);
        tasks.update(t);
      } else if (gate.redraft && object) {
        redraft(
          ctx,
          t,
          object,
          `object ${t.object_ref} is at version ${object.version}, the proposal was for ${proposal!.base_version} (found at apply)`,
        );
      }
      return { kind: 'refused', gate, task: tasks.get(taskId)!, currentVersion: object?.version ?? null };
    }
    log.record(t.task_id, at, 'apply_requested', p.subject, {
      idempotency_key: key,
      proposal_version: proposal!.proposal_version,
      base_version: proposal!.base_version,
      object_version: object!.version,
    });
    log.move(
      t,
      'applying',
      `apply requested by ${p.subject}; approval by ${t.review!.reviewer} of proposal ${proposal!.proposal_version} checked`,
      p.subject,
      at,
    );
    if (t.behavior.apply === 'fail') {
      t.error = { code: 'apply_failed', message: 'the change could not be applied (simulated by the task behaviour)' };
      log.record(t.task_id, at, 'application', 'provider', { result: 'failed', idempotency_key: key, object_version: object!.version });
      log.move(t, 'apply_failed', 'the change could not be applied', 'provider', at);
      tasks.update(t);
      return { kind: 'apply_failed', task: t };
    }
    const changed = objects.write(t.tenant, t.object_ref, mergePatch(object!.data, proposal!.change.patch) as Record<string, unknown>, at);
    t.application = { applied_at: isoTime(at), new_version: changed.version, idempotency_key: key };
    log.record(t.task_id, at, 'application', 'provider', {
      result: 'applied',
      idempotency_key: key,
      applied_by: p.subject,
      base_version: proposal!.base_version,
      new_version: changed.version,
      proposal_sha256: proposal!.sha256,
    });
    log.move(t, 'applied', `applied: ${t.object_ref} version ${proposal!.base_version} → ${changed.version}`, 'provider', at);
    tasks.update(t);
    redraftOpen(ctx, changed, `object ${t.object_ref} changed to version ${changed.version} by task ${t.task_id}`, t.task_id);
    return { kind: 'applied', task: t };
  })();
}
