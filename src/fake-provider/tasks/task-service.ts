import { fingerprint } from '../../lib/canonical-json.js';
import type { Clock } from '../../lib/clock.js';
import type { IdSource } from '../../lib/ids.js';
import type { Principal } from '../../contract/principals.js';
import type { Db } from '../store/database.js';
import type { SettingsRepo } from '../store/settings-repo.js';
import { applyChange, type ApplyOutcome } from './apply-change.js';
import { AuditRepo } from './audit-repo.js';
import { DraftingTimer } from './drafting-timer.js';
import {
  TaskBehaviorSchema,
  type AuditEvent,
  type CreateTaskBody,
  type ReviewBody,
  type TaskBehavior,
  type TaskBehaviorInput,
  type TaskView,
} from '../../contract/tasks.js';
import { isoTime } from '../../lib/clock.js';
import type { ObjectRow, TaskRow } from './model.js';
import { ObjectsRepo } from './objects-repo.js';
import { redraftOpen } from './redraft.js';
import type { TaskContext } from './task-context.js';
import { TaskLog } from './task-log.js';
import { nextDraftStep, reviewOutcome, type Refusal } from './task-machine.js';
import { TasksRepo } from './tasks-repo.js';

export type { ApplyOutcome } from './apply-change.js';

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

/**
 * The tasks API's behaviour: objects, tasks, drafts, reviews, applications and the per-task audit, each change in
 * one SQLite transaction. Drafting runs on the provider clock (`DraftingTimer`); applying is `applyChange`.
 */
export class TaskService {
  readonly objects: ObjectsRepo;
  readonly tasks: TasksRepo;
  readonly audit: AuditRepo;
  private readonly ctx: TaskContext;
  private readonly drafting: DraftingTimer;
  private behaviorNow: TaskBehavior;

  constructor(private readonly d: TaskServiceDeps) {
    this.objects = new ObjectsRepo(d.db);
    this.tasks = new TasksRepo(d.db);
    this.audit = new AuditRepo(d.db);
    this.ctx = { db: d.db, tasks: this.tasks, objects: this.objects, log: new TaskLog(this.audit), now: () => d.clock.now() };
    this.drafting = new DraftingTimer(this.ctx, d.clock);
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
    this.ctx.log.record(taskId, at, type, actor, fields);
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
      const redrafted = redraftOpen(this.ctx, object, cause, null);
      return { object, redrafted };
    })();
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
    this.drafting.tick();
  }

  reschedule(): void {
    this.drafting.reschedule();
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
      this.ctx.log.move(t, out.to, `${out.decision} by ${p.subject} (proposal ${proposal.proposal_version})`, p.subject, at);
      this.tasks.update(t);
      return { ok: true as const, task: t };
    })();
  }

  // ---- apply ---------------------------------------------------------------------------------------------------

  apply(p: Principal, taskId: string, key: string): ApplyOutcome {
    return applyChange(this.ctx, (tenant, subject) => this.isReviewerNow(tenant, subject), p, taskId, key);
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
      this.audit.reset();
      this.tasks.reset();
      this.objects.reset();
    })();
    this.drafting.reset();
  }

  close(): void {
    this.drafting.close();
  }
}
