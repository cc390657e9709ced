import type { Clock, TimerHandle } from '../../lib/clock.js';
import { makeDraft } from './draft.js';
import type { TaskContext } from './task-context.js';
import { nextDraftStep } from './task-machine.js';

/**
 * Time-driven drafting on the provider clock: a timer at the earliest due step, and a catch-up before every request
 * (a request must never see a task behind its own schedule).
 */
export class DraftingTimer {
  private timer: { handle: TimerHandle; at: number } | null = null;
  /** Earliest due drafting step as last computed, and the repo's write count then. */
  private due: { writes: number; at: number | null } | null = null;
  private closed = false;

  constructor(
    private readonly ctx: TaskContext,
    private readonly clock: Clock,
  ) {}

  tick(): void {
    if (this.closed) return;
    const now = this.ctx.now();
    // Every request ticks: skip the due query while no task was written since the earliest due time was computed
    // and that time is still ahead (a per-request query that found nothing was 4 % of a status read).
    const due = this.due;
    if (due && due.writes === this.ctx.tasks.writes && (due.at === null || now < due.at)) return;
    for (const id of this.ctx.tasks.dueIds(now)) this.advance(id, now);
    this.reschedule();
  }

  private advance(id: string, now: number): void {
    const { db, tasks, objects, log } = this.ctx;
    db.transaction(() => {
      const t = tasks.get(id);
      if (!t) return;
      for (let step = nextDraftStep(t); step && step.at <= now; step = nextDraftStep(t)) {
        if (step.to === 'running') log.move(t, 'running', 'drafting started', 'provider', step.at);
        else if (step.to === 'failed') {
          t.error = { code: 'draft_failed', message: 'drafting failed (simulated by the task behaviour)' };
          log.move(t, 'failed', 'drafting failed: a processing error', 'provider', step.at);
        } else {
          const object = objects.get(t.tenant, t.object_ref)!;
          const made = makeDraft(object, t.input, 1);
          log.record(t.task_id, step.at, 'object_read', 'provider', { object_ref: object.object_ref, version: object.version });
          log.record(t.task_id, step.at, 'draft', 'provider', {
            proposal_version: 1,
            base_version: made.proposal.base_version,
            sha256: made.proposal.sha256,
            sources: made.draft.sources,
          });
          t.result = made;
          log.move(t, 'awaiting_review', `draft ready (proposal 1 against version ${object.version})`, 'provider', step.at);
        }
      }
      t.next_step_at = nextDraftStep(t)?.at ?? null;
      tasks.update(t);
    })();
  }

  reschedule(): void {
    if (this.closed) return;
    const at = this.ctx.tasks.nextDueAt();
    this.due = { writes: this.ctx.tasks.writes, at };
    if (this.timer && (at === null || this.timer.at !== at)) {
      this.clock.clearTimeout(this.timer.handle);
      this.timer = null;
    }
    if (at !== null && !this.timer) {
      const handle = this.clock.setTimeout(() => {
        this.timer = null;
        // A real timer may fire a millisecond early: the timer always looks.
        this.due = null;
        this.tick();
      }, at - this.ctx.now());
      this.timer = { handle, at };
    }
  }

  /** Forget the cached due time (the tables were emptied) and look again. */
  reset(): void {
    this.due = null;
    this.reschedule();
  }

  close(): void {
    this.closed = true;
    if (this.timer) this.clock.clearTimeout(this.timer.handle);
    this.timer = null;
  }
}
