import { makeDraft } from './draft.js';
import type { ObjectRow, TaskRow } from './model.js';
import type { TaskContext } from './task-context.js';
import { needsRedraft } from './task-machine.js';

/** Redraft every open task on `object` that needs it (except `except`, the task whose apply changed it). */
export function redraftOpen(ctx: TaskContext, object: ObjectRow, cause: string, except: string | null): string[] {
  const ids = ctx.tasks.openOnObject(object.tenant, object.object_ref).filter((id) => id !== except);
  for (const id of ids) {
    const t = ctx.tasks.get(id)!;
    if (needsRedraft(t.state)) redraft(ctx, t, object, cause);
  }
  return ids;
}

/**
 * A new proposal against the object as it is now. An approval of the old proposal lapses with it (tasks-api.md:
 * an approval is bound to one version of the proposal), and the task waits for review again.
 */
export function redraft(ctx: TaskContext, t: TaskRow, object: ObjectRow, cause: string): void {
  const at = ctx.now();
  const prev = t.result!.proposal;
  const next = makeDraft(object, t.input, prev.proposal_version + 1);
  const wasApproved = t.state === 'approved';
  ctx.log.record(t.task_id, at, 'object_read', 'provider', { object_ref: object.object_ref, version: object.version });
  ctx.log.record(t.task_id, at, 'draft', 'provider', {
    proposal_version: next.proposal.proposal_version,
    base_version: next.proposal.base_version,
    sha256: next.proposal.sha256,
    sources: next.draft.sources,
    replaces: { proposal_version: prev.proposal_version, base_version: prev.base_version, sha256: prev.sha256 },
  });
  if (t.review?.decision === 'approved') {
    ctx.log.record(t.task_id, at, 'approval_lapsed', 'provider', {
      reviewer: t.review.reviewer,
      proposal_version: t.review.proposal_version,
      reason: `redrafted: ${cause}`,
    });
  }
  t.result = next;
  t.review = null;
  if (wasApproved) t.lapse_reason = 'object_changed';
  ctx.log.move(
    t,
    'awaiting_review',
    `redrafted (proposal ${prev.proposal_version} → ${next.proposal.proposal_version}): ${cause}${wasApproved ? '; the approval lapsed' : ''}`,
    'provider',
    at,
  );
  ctx.tasks.update(t);
}
