/**
 * What tasks-api.md leaves to the provider, chosen one way or another. `NAMED` takes the names its examples use;
 * `OWN` is a team that read the same page and chose otherwise everywhere it may.
 */
export interface Choices {
  /** Audit event types, and the field the apply key is logged under. */
  events: Record<'created' | 'draft' | 'transition' | 'lapsed' | 'review' | 'applyRequested' | 'applyRefused' | 'application', string>;
  keyField: string;
  /** What an approval answers: the task as read, or the review record alone (the spec names no body). */
  reviewAnswer: 'task' | 'review';
  /** Where 409 already_applied carries the application record: at the top, or inside the task. */
  alreadyApplied: 'top' | 'in-task';
  /** The field 409 stale_object_version carries the current version in. */
  staleVersion: 'current_version' | 'object.version';
  /** A lapsed approval: cleared, or kept as history bound to the proposal it approved. */
  lapse: 'clear' | 'keep';
  /** What proposal.sha256 is taken over: canonical JSON, or JSON as written. */
  digest: 'canonical' | 'as-written';
}

export const NAMED: Choices = {
  events: {
    created: 'created',
    draft: 'draft',
    transition: 'transition',
    lapsed: 'approval_lapsed',
    review: 'review',
    applyRequested: 'apply_requested',
    applyRefused: 'apply_refused',
    application: 'application',
  },
  keyField: 'idempotency_key',
  reviewAnswer: 'task',
  alreadyApplied: 'top',
  staleVersion: 'current_version',
  lapse: 'clear',
  digest: 'canonical',
};

export const OWN: Choices = {
  events: {
    created: 'task.submitted',
    draft: 'proposal.drafted',
    transition: 'state.changed',
    lapsed: 'approval.void',
    review: 'review.recorded',
    applyRequested: 'apply.received',
    applyRefused: 'apply.declined',
    application: 'applied',
  },
  keyField: 'request_key',
  reviewAnswer: 'review',
  alreadyApplied: 'in-task',
  staleVersion: 'object.version',
  lapse: 'keep',
  digest: 'as-written',
};
