import type { Clock, TimerHandle } from '../../lib/clock.js';
import type { IdSource } from '../../lib/ids.js';
import type { Behavior } from '../../contract/behavior.js';
import type { CreateJobBody, Job } from '../../contract/jobs.js';
import type { Principal } from '../../contract/principals.js';
import { atomically } from '../store/atomically.js';
import type { Db } from '../store/database.js';
import type { DueJob, JobRow, JobsRepo, JobViewRow } from '../store/jobs-repo.js';
import type { JournalRepo } from '../store/journal-repo.js';
import type { GroupCommit } from '../store/group-commit.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { WebhookRepo } from '../webhooks/webhook-repo.js';
import { jobView } from './job-view.js';
import { applyStep, dueSteps, nextStep, planJob, requestCancel, type Step } from './lifecycle.js';
import { resultDescriptor } from './results.js';

export interface JobEngineDeps {
  db: Db;
  jobs: JobsRepo;
  journal: JournalRepo;
  webhookRepo: WebhookRepo;
  clock: Clock;
  ids: IdSource;
  /**
   * The dispatcher of the jobs' webhook events, built by the engine it works with: it asks the engine to look again
   * (`reschedule`) whenever a delivery's due time may have moved, and the engine drives it on each tick.
   */
  webhooks: (reschedule: () => void) => WebhookDispatcher;
  /** The turn's transaction, joined before due work is written (store/group-commit.ts). */
  group?: GroupCommit;
  /**
   * Round the timer's due time up to a multiple of this many ms (0: exact). On the real clock, jobs created a
   * millisecond apart would otherwise each get a timer tick and a transaction of their own; a step is still recorded
   * at its own due time, and every request catches up before it answers, so only webhooks can go out this much later.
   */
  timerQuantumMs?: number;
}

export type CancelResult = { kind: 'terminal' | 'repeated' | 'accepted'; job: JobRow };

/**
 * Applies the lifecycle to stored jobs: creates them, moves them along as time passes (on a timer and before every
 * request, so reads are never stale), journals each transition and queues its webhook event, all in one
 * transaction per job change.
 */
export class JobEngine {
  private timer: { handle: TimerHandle; at: number } | null = null;
  private closed = false;
  /** Earliest due job step or webhook attempt as of the last reschedule; undefined until first computed. */
  private nextDue: number | null | undefined = undefined;
  /** Earliest webhook attempt as of the last reschedule; undefined until first computed. */
  private webhookDue: number | null | undefined = undefined;
  /** A step of this tick queued a webhook event: the dispatcher must look. */
  private enqueued = false;

  readonly webhooks: WebhookDispatcher;

  constructor(private readonly d: JobEngineDeps) {
    this.webhooks = d.webhooks(() => this.reschedule());
  }

  /**
   * `meta.id`: a dialect names its batches itself (`batch_…`, `msgbatch_…`); `meta.key` is null where no key is kept.
   * Call `scheduleCreated()` once the create is committed.
   */
  create(
    p: Principal,
    body: CreateJobBody,
    behavior: Behavior,
    meta: { key: string | null; trace_id: string | null; id?: string },
  ): JobRow {
    const now = this.d.clock.now();
    const jobId = meta.id ?? this.d.ids('job');
    const plan = planJob(behavior, now);
    const webhookUrl = body.webhook_url ?? null;
    const error = behavior.outcome === 'failed' ? { code: 'job_failed', message: 'the job failed (simulated by its behaviour)' } : null;
    const row: JobRow = {
      seq: 0,
      job_id: jobId,
      tenant: p.tenant,
      subject: p.subject,
      kind: body.kind,
      input: body.input,
      client_ref: body.client_ref ?? null,
      idempotency_key: meta.key,
      trace_id: meta.trace_id,
      webhook_url: webhookUrl,
      behavior,
      state: 'queued',
      created_at: now,
      updated_at: now,
      ...plan,
      // The progress step changes no state and writes no journal entry: without a webhook to send its event to,
      // nothing observes it, so it is not planned (one job write fewer).
      progress_at: webhookUrl === null ? null : plan.progress_at,
      cancel_requested_at: null,
      cancel_effective_at: null,
      next_step_at: null,
      // Computed when the job succeeds (applyAndRecord): results are a pure function of id and behaviour.
      result: null,
      error,
      finished_at: null,
      results_fetched: 0,
    };
    row.next_step_at = nextStep(row)?.at ?? null;
    row.seq = this.d.jobs.insert(row);
    this.d.journal.appendTransition({ at: now, job_id: jobId, tenant: p.tenant, from: null, to: 'queued', cause: 'created' });
    // A sync job is finished inside the request that created it (atomic with its insert, as every job change is).
    if (behavior.mode === 'sync') {
      this.nextDue = undefined;
      return atomically(this.d.db, () => this.advance(row, now));
    }
    // The earliest due time can only move earlier: while it is known, no query is needed to keep it (see tick()).
    const at = row.next_step_at;
    if (at !== null && this.nextDue !== undefined && (this.nextDue === null || at < this.nextDue)) this.nextDue = at;
    return row;
  }

  /** After committing creates: arm the timer for their first steps (no query while the earliest due time is known). */
  scheduleCreated(): void {
    if (this.nextDue === undefined) this.reschedule();
    else this.arm(this.nextDue);
  }

  cancel(job: JobRow): CancelResult {
    const now = this.d.clock.now();
    const outcome = requestCancel(job, now);
    if (outcome.kind !== 'accepted') return { kind: outcome.kind, job };
    const next = { ...job, ...outcome.times, updated_at: now };
    next.next_step_at = nextStep(next)?.at ?? null;
    this.d.jobs.update(job.job_id, {
      state: next.state,
      updated_at: now,
      cancel_requested_at: next.cancel_requested_at,
      cancel_effective_at: next.cancel_effective_at,
      finish_at: next.finish_at,
      progress_at: next.progress_at,
      next_step_at: next.next_step_at,
    });
    const cause = outcome.wins
      ? 'cancel requested before the commit point'
      : job.behavior.cancel === 'ignore'
        ? 'cancel requested (provider ignores cancels)'
        : 'cancel requested after the commit point';
    this.d.journal.appendTransition({ at: now, job_id: job.job_id, tenant: job.tenant, from: job.state, to: 'cancelling', cause });
    this.webhooks.enqueue(next, 'job.cancelling', jobView(next, now), now);
    this.reschedule();
    return { kind: 'accepted', job: next };
  }

  view(job: JobViewRow): Job {
    return jobView(job, this.d.clock.now());
  }

  /** Bring every job and webhook up to `now`. Cheap when nothing is due (one indexed MIN query). */
  tick(fromTimer = false): void {
    if (this.closed) return;
    const now = this.d.clock.now();
    // Every request ticks: when nothing can be due yet (the earliest due time is known), skip the queries. The timer
    // itself always looks (a real timer may fire a millisecond before Date.now() reaches its due time).
    if (!fromTimer && this.nextDue !== undefined && (this.nextDue === null || now < this.nextDue)) return;
    const due = this.d.jobs.due(now);
    // All due jobs in one transaction, so each job's change is atomic with the rest: one commit per tick, not per job.
    if (due.length > 0) {
      this.d.group?.join();
      atomically(this.d.db, () => {
        for (const job of due) this.advance(job, now);
      });
    }
    // Only when a delivery can be due: the dispatcher's due query on every tick cost as much as a step's UPDATE.
    const wd = this.webhookDue;
    if (this.enqueued || wd === undefined || (wd !== null && wd <= now)) this.webhooks.run(now);
    this.enqueued = false;
    this.reschedule();
  }

  /** Apply every step of `job` due by `now`, journal them, queue their events, write the job. Inside a transaction. */
  private advance<T extends DueJob>(start: T, now: number): T {
    let job = start;
    for (const step of dueSteps(job, now)) job = this.applyAndRecord(job, step);
    job.next_step_at = nextStep(job)?.at ?? null;
    this.d.jobs.writeStep({
      seq: job.seq,
      state: job.state,
      updated_at: job.updated_at,
      progress_at: job.progress_at,
      finish_at: job.finish_at,
      cancel_effective_at: job.cancel_effective_at,
      next_step_at: job.next_step_at,
      finished_at: job.finished_at,
      result: job.result === start.result ? null : job.result,
    });
    return job;
  }

  private applyAndRecord<T extends DueJob>(job: T, step: Step): T {
    const next = { ...applyStep(job, step) };
    if (step.to) {
      next.updated_at = step.at;
      if (step.to === 'succeeded' || step.to === 'failed' || step.to === 'cancelled' || step.to === 'expired') next.finished_at = step.at;
      if (step.to === 'succeeded' && next.result === null) next.result = resultDescriptor(job.job_id, job.behavior);
      this.d.journal.appendTransition({
        at: step.at,
        job_id: job.job_id,
        tenant: job.tenant,
        from: job.state,
        to: step.to,
        cause: step.cause,
      });
    }
    // Without a webhook the event goes nowhere (the dispatcher drops it): skip building its job view.
    if (next.webhook_url) {
      this.webhooks.enqueue(next, step.event, jobView(next, step.at), step.at);
      this.enqueued = true;
    }
    return next;
  }

  /** Keep exactly one clock timer, set for the earliest due job step or webhook attempt (queried afresh). */
  reschedule(): void {
    if (this.closed) return;
    const jobsDue = this.d.jobs.nextDueAt();
    this.webhookDue = this.d.webhookRepo.nextDueAt();
    this.nextDue = jobsDue === null ? this.webhookDue : this.webhookDue === null ? jobsDue : Math.min(jobsDue, this.webhookDue);
    this.arm(this.nextDue);
  }

  private arm(at: number | null): void {
    if (this.closed) return;
    if (this.timer && (at === null || this.timer.at !== at)) {
      this.d.clock.clearTimeout(this.timer.handle);
      this.timer = null;
    }
    if (at !== null && !this.timer) {
      const q = this.d.timerQuantumMs ?? 0;
      const fireAt = q > 0 ? Math.ceil(at / q) * q : at;
      const handle = this.d.clock.setTimeout(() => {
        this.timer = null;
        this.tick(true);
      }, fireAt - this.d.clock.now());
      this.timer = { handle, at };
    }
  }

  markResultsFetched(job: JobRow): void {
    this.d.jobs.update(job.job_id, { results_fetched: job.results_fetched + 1 });
  }

  /** Forget every job and webhook delivery (the provider's reset). */
  reset(): void {
    this.d.jobs.reset();
    this.d.webhookRepo.reset();
    this.reschedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer) this.d.clock.clearTimeout(this.timer.handle);
    this.timer = null;
  }
}
