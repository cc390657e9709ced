import { fingerprint } from '../../lib/canonical-json.js';
import { isoTime, type Clock, type TimerHandle } from '../../lib/clock.js';
import type { IdSource } from '../../lib/ids.js';
import type { Principal } from '../../contract/principals.js';
import type { Db } from '../store/database.js';
import type { SettingsRepo } from '../store/settings-repo.js';
import { AuditRepo, type NewAuditEvent } from './audit-repo.js';
import { makeDraft, mergePatch, proposalSha } from './draft.js';
import {
  TaskBehaviorSchema,
  type AuditEvent,
  type CreateTaskBody,
  type ReviewBody,
  type TaskBehavior,
  type TaskBehaviorInput,
  type TaskState,
  type TaskView,
} from '../../contract/tasks.js';
import type { ObjectRow, TaskRow } from './model.js';
import { ObjectsRepo } from './objects-repo.js';
import { TASK_TABLES } from './schema.js';
import { applyGate, canTransition, needsRedraft, nextDraftStep, reviewOutcome, type ApplyGate, type Refusal } from './task-machine.js';
import { TasksRepo } from './tasks-repo.js';

export interface TaskServiceDeps {
  db: Db;
  clock: Clock;
  ids: IdSource;
  settings: SettingsRepo;
  /** The token table of now (it changes at run time through `PUT /_control/principals`). */
  principals: () => Record<string, Principal>;
}

const BEHAVIOR = 'task_behavior';

export type CreateCheck =
  | { ok: true; object: ObjectRow }
  | { ok: false; status: 403 | 404 | 409; code: string; detail: string; extras?: Record<string, unknown> };
export type ApplyOutcome =
  | { kind: 'applied'; task: TaskRow }
  | { kind: 'apply_failed'; task: TaskRow }
  | { kind: 'refused'; gate: Extract<ApplyGate, { ok: false }>; task: TaskRow; currentVersion: number | null };

/**
 * The tasks API's behaviour: objects, tasks, drafts, reviews, applications and the per-task audit, each change in
 * one SQLite transaction. Time-driven drafting runs on the provider clock (a timer, and a catch-up before every request).
 */
export class TaskService {
  readonly objects: ObjectsRepo;
  readonly tasks: TasksRepo;
  readonly audit: AuditRepo;
  private timer: { handle: TimerHandle; at: number } | null = null;
  /** Earliest due drafting step as last computed, and the repo's write count then. */
  private due: { writes: number; at: number | null } | null = null;
  private closed = false;
  private behaviorNow: TaskBehavior;

  constructor(private readonly d: TaskServiceDeps) {
    this.objects = new ObjectsRepo(d.db);
    this.tasks = new TasksRepo(d.db);
    this.audit = new AuditRepo(d.db);
    this.behaviorNow = d.settings.get<TaskBehavior>(BEHAVIOR) ?? TaskBehaviorSchema.parse({});
  }

  behavior(): TaskBehavior {
    return this.behaviorNow;
  }

  setBehavior(input: TaskBehaviorInput): TaskBehavior {
    this.behaviorNow = TaskBehaviorSchema.parse(input);
    this.d.settings.put(BEHAVIOR, this.behaviorNow);
    return this.behaviorNow;
  }

  private now(): number {
    return this.d.clock.now();
  }

  private record(taskId: string, at: number, type: string, actor: string, fields: Record<string, unknown> = {}): void {
    this.audit.append(taskId, { at: isoTime(at), type, actor, ...fields } as NewAuditEvent);
  }

  private move(t: TaskRow, to: TaskState, cause: string, actor: string, at: number): void {
    if (!canTransition(t.state, to)) throw new Error(`task machine: ${t.state} → ${to} is not a transition`);
    this.record(t.task_id, at, 'transition', actor, { from: t.state, to, cause });
    t.state = to;
    t.updated_at = at;
  }

  /** Whether `subject` of `tenant` holds the reviewer role now (under any of its tokens). */
  isReviewerNow(tenant: string, subject: string): boolean {
    return Object.values(this.d.principals()).some((p) => p.tenant === tenant && p.subject === subject && p.roles.includes('reviewer'));
  }

  // ---- objects -------------------------------------------------------------------------------------------------

  /** Control API: create or change an object; open tasks on it are redrafted. */
  putObject(tenant: string, ref: string, data: Record<string, unknown>): { object: ObjectRow; redrafted: string[] } {
    return this.d.db.transaction(() => {
      const before = this.objects.get(tenant, ref);
      const object = this.objects.write(tenant, ref, data, this.now());
      const cause = `object ${ref} changed from version ${before?.version ?? 'none'} to ${object.version} (control API)`;
      const redrafted = this.redraftOpen(object, cause, null);
      return { object, redrafted };
    })();
  }

  private redraftOpen(object: ObjectRow, cause: string, except: string | null): string[] {
    const ids = this.tasks.openOnObject(object.tenant, object.object_ref).filter((id) => id !== except);
    for (const id of ids) {
      const t = this.tasks.get(id)!;
      if (needsRedraft(t.state)) this.redraft(t, object, cause);
    }
    return ids;
  }

  private redraft(t: TaskRow, object: ObjectRow, cause: string): void {
    const at = this.now();
    const prev = t.result!.proposal;
    const next = makeDraft(object, t.input, prev.proposal_version + 1);
    const wasApproved = t.state === 'approved';
    this.record(t.task_id, at, 'object_read', 'provider', { object_ref: object.object_ref, version: object.version });
    this.record(t.task_id, at, 'draft', 'provider', {
      proposal_version: next.proposal.proposal_version,
      base_version: next.proposal.base_version,
      sha256: next.proposal.sha256,
      sources: next.draft.sources,
      replaces: { proposal_version: prev.proposal_version, base_version: prev.base_version, sha256: prev.sha256 },
    });
    if (t.review?.decision === 'approved') {
      this.record(t.task_id, at, 'approval_lapsed', 'provider', {
        reviewer: t.review.reviewer,
        proposal_version: t.review.proposal_version,
        reason: `redrafted: ${cause}`,
      });
    }
    t.result = next;
    t.review = null;
    if (wasApproved) t.lapse_reason = 'object_changed';
    this.move(
      t,
      'awaiting_review',
      `redrafted (proposal ${prev.proposal_version} → ${next.proposal.proposal_version}): ${cause}${wasApproved ? '; the approval lapsed' : ''}`,
      'provider',
      at,
    );
    this.tasks.update(t);
  }

  // ---- create --------------------------------------------------------------------------------------------------

  /** The checks of `POST /v1/tasks` that need the store: object visible, version current. */
  checkCreate(p: Principal, body: CreateTaskBody): CreateCheck {
    const object = this.objects.get(p.tenant, body.object_ref);
    if (!object) return { ok: false, status: 404, code: 'object_not_found', detail: `no object ${body.object_ref} in your tenant` };
    if (object.version !== body.object_version) {
      return {
        ok: false,
        status: 409,
        code: 'stale_object_version',
        detail: `object ${body.object_ref} is at version ${object.version}, not ${body.object_version}`,
        extras: { object_ref: body.object_ref, current_version: object.version },
      };
    }
    return { ok: true, object };
  }

  create(p: Principal, body: CreateTaskBody, object: ObjectRow, meta: { key: string; trace_id: string | null }): TaskRow {
    const now = this.now();
    const t: TaskRow = {
      task_id: this.d.ids('task'),
      tenant: p.tenant,
      type: body.type,
      state: 'queued',
      object_ref: body.object_ref,
      object_version: body.object_version,
      input: body.input,
      initiator: p.subject,
      idempotency_key: meta.key,
      trace_id: meta.trace_id,
      behavior: this.behaviorNow,
      created_at: now,
      updated_at: now,
      next_step_at: null,
      result: null,
      review: null,
      application: null,
      error: null,
      lapse_reason: null,
    };
    t.next_step_at = nextDraftStep(t)?.at ?? null;
    this.tasks.insert(t);
    this.record(t.task_id, now, 'created', p.subject, {
      initiator: p.subject,
      idempotency_key: meta.key,
      trace_id: meta.trace_id,
      task_type: body.type,
      object_ref: body.object_ref,
      object_version: body.object_version,
      input_fingerprint: fingerprint(body.input),
    });
    this.record(t.task_id, now, 'object_read', 'provider', { object_ref: object.object_ref, version: object.version });
    this.record(t.task_id, now, 'transition', 'provider', { from: null, to: 'queued', cause: `created by ${p.subject}` });
    this.reschedule();
    return t;
  }

  // ---- time-driven drafting ------------------------------------------------------------------------------------

  tick(): void {
    if (this.closed) return;
    const now = this.now();
    // Every request ticks: skip the due query while no task was written since the earliest due time was computed
    // and that time is still ahead (a per-request query that found nothing was 4 % of a status read).
    const due = this.due;
    if (due && due.writes === this.tasks.writes && (due.at === null || now < due.at)) return;
    for (const id of this.tasks.dueIds(now)) this.advance(id, now);
    this.reschedule();
  }

  private advance(id: string, now: number): void {
    this.d.db.transaction(() => {
      const t = this.tasks.get(id);
      if (!t) return;
      for (let step = nextDraftStep(t); step && step.at <= now; step = nextDraftStep(t)) {
        if (step.to === 'running') this.move(t, 'running', 'drafting started', 'provider', step.at);
        else if (step.to === 'failed') {
          t.error = { code: 'draft_failed', message: 'drafting failed (simulated by the task behaviour)' };
          this.move(t, 'failed', 'drafting failed: a processing error', 'provider', step.at);
        } else {
          const object = this.objects.get(t.tenant, t.object_ref)!;
          const made = makeDraft(object, t.input, 1);
          this.record(t.task_id, step.at, 'object_read', 'provider', { object_ref: object.object_ref, version: object.version });
          this.record(t.task_id, step.at, 'draft', 'provider', {
            proposal_version: 1,
            base_version: made.proposal.base_version,
            sha256: made.proposal.sha256,
            sources: made.draft.sources,
          });
          t.result = made;
          this.move(t, 'awaiting_review', `draft ready (proposal 1 against version ${object.version})`, 'provider', step.at);
        }
      }
      t.next_step_at = nextDraftStep(t)?.at ?? null;
      this.tasks.update(t);
    })();
  }

  reschedule(): void {
    if (this.closed) return;
    const at = this.tasks.nextDueAt();
    this.due = { writes: this.tasks.writes, at };
    if (this.timer && (at === null || this.timer.at !== at)) {
      this.d.clock.clearTimeout(this.timer.handle);
      this.timer = null;
    }
    if (at !== null && !this.timer) {
      const handle = this.d.clock.setTimeout(() => {
        this.timer = null;
        // A real timer may fire a millisecond early: the timer always looks.
        this.due = null;
        this.tick();
      }, at - this.now());
      this.timer = { handle, at };
    }
  }

  // ---- review --------------------------------------------------------------------------------------------------

  review(p: Principal, taskId: string, body: ReviewBody): { ok: true; task: TaskRow } | (Refusal & { task: TaskRow }) {
    return this.d.db.transaction(() => {
      const t = this.tasks.get(taskId)!;
      const out = reviewOutcome(t, p, body);
      if (!out.ok) return { ...out, task: t };
      const at = this.now();
      const proposal = t.result!.proposal;
      t.review = {
        decision: out.decision,
        reviewer: p.subject,
        proposal_version: proposal.proposal_version,
        proposal_sha256: proposal.sha256,
        at: isoTime(at),
      };
      if (out.decision === 'approved') t.lapse_reason = null;
      this.record(t.task_id, at, 'review', p.subject, {
        reviewer: p.subject,
        decision: out.decision,
        proposal_version: proposal.proposal_version,
        proposal_sha256: proposal.sha256,
        ...(body.comment !== undefined ? { comment: body.comment } : {}),
      });
      this.move(t, out.to, `${out.decision} by ${p.subject} (proposal ${proposal.proposal_version})`, p.subject, at);
      this.tasks.update(t);
      return { ok: true as const, task: t };
    })();
  }

  // ---- apply ---------------------------------------------------------------------------------------------------

  /** Apply under the checks of the moment. Runs in one transaction: the object changes once, with its record. */
  apply(p: Principal, taskId: string, key: string): ApplyOutcome {
    return this.d.db.transaction((): ApplyOutcome => {
      const t = this.tasks.get(taskId)!;
      const at = this.now();
      const object = this.objects.get(t.tenant, t.object_ref);
      const proposal = t.result?.proposal ?? null;
      const gate = applyGate(t, {
        objectVersion: object?.version,
        approverIsReviewer: t.review ? this.isReviewerNow(t.tenant, t.review.reviewer) : false,
        proposalSha: proposal ? proposalSha(proposal) : null,
      });
      if (!gate.ok) {
        this.record(t.task_id, at, 'apply_refused', p.subject, {
          idempotency_key: key,
          code: gate.code,
          reason: gate.detail,
          object_version: object?.version ?? null,
        });
        if (gate.lapse && t.review) {
          this.record(t.task_id, at, 'approval_lapsed', 'provider', {
            reviewer: t.review.reviewer,
            proposal_version: t.review.proposal_version,
            reason: gate.detail,
          });
          t.review = null;
          t.lapse_reason = gate.lapse === 'approver_lost_role' ? 'approver_lost_role' : null;
          this.move(t, 'awaiting_review', `approval lapsed at apply: ${gate.detail}`, 'provider', at);
          this.tasks.update(t);
        } else if (gate.redraft && object) {
          this.redraft(
            t,
            object,
            `object ${t.object_ref} is at version ${object.version}, the proposal was for ${proposal!.base_version} (found at apply)`,
          );
        }
        return { kind: 'refused', gate, task: this.tasks.get(taskId)!, currentVersion: object?.version ?? null };
      }
      this.record(t.task_id, at, 'apply_requested', p.subject, {
        idempotency_key: key,
        proposal_version: proposal!.proposal_version,
        base_version: proposal!.base_version,
        object_version: object!.version,
      });
      this.move(
        t,
        'applying',
        `apply requested by ${p.subject}; approval by ${t.review!.reviewer} of proposal ${proposal!.proposal_version} checked`,
        p.subject,
        at,
      );
      if (t.behavior.apply === 'fail') {
        t.error = { code: 'apply_failed', message: 'the change could not be applied (simulated by the task behaviour)' };
        this.record(t.task_id, at, 'application', 'provider', { result: 'failed', idempotency_key: key, object_version: object!.version });
        this.move(t, 'apply_failed', 'the change could not be applied', 'provider', at);
        this.tasks.update(t);
        return { kind: 'apply_failed', task: t };
      }
      const changed = this.objects.write(
        t.tenant,
        t.object_ref,
        mergePatch(object!.data, proposal!.change.patch) as Record<string, unknown>,
        at,
      );
      t.application = { applied_at: isoTime(at), new_version: changed.version, idempotency_key: key };
      this.record(t.task_id, at, 'application', 'provider', {
        result: 'applied',
        idempotency_key: key,
        applied_by: p.subject,
        base_version: proposal!.base_version,
        new_version: changed.version,
        proposal_sha256: proposal!.sha256,
      });
      this.move(t, 'applied', `applied: ${t.object_ref} version ${proposal!.base_version} → ${changed.version}`, 'provider', at);
      this.tasks.update(t);
      this.redraftOpen(changed, `object ${t.object_ref} changed to version ${changed.version} by task ${t.task_id}`, t.task_id);
      return { kind: 'applied', task: t };
    })();
  }

  // ---- views ---------------------------------------------------------------------------------------------------

  view(t: TaskRow): TaskView {
    return {
      task_id: t.task_id,
      type: t.type,
      state: t.state,
      object_ref: t.object_ref,
      object_version: t.object_version,
      initiator: t.initiator,
      created_at: isoTime(t.created_at),
      updated_at: isoTime(t.updated_at),
      result: t.result,
      review: t.review,
      application: t.application,
      error: t.error,
    };
  }

  auditOf(taskId: string): AuditEvent[] {
    return this.audit.list(taskId);
  }

  reset(): void {
    this.d.db.transaction(() => {
      for (const table of TASK_TABLES) this.d.db.prepare(`DELETE FROM ${table}`).run();
    })();
    this.due = null;
    this.reschedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer) this.d.clock.clearTimeout(this.timer.handle);
    this.timer = null;
  }
}
