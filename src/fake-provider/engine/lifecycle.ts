import type { Behavior } from '../../contract/behavior.js';
import type { JobState } from '../../contract/jobs.js';
import type { WebhookEventType } from '../../contract/webhooks.js';

/**
 * The job lifecycle as pure functions of (job, behaviour, time). No I/O: the engine applies the steps these
 * functions return, so the same inputs always give the same transitions, on a real or a virtual clock.
 */
export interface JobTimes {
  state: JobState;
  behavior: Behavior;
  created_at: number;
  running_at: number;
  progress_at: number | null;
  finish_at: number | null;
  cancel_requested_at: number | null;
  cancel_effective_at: number | null;
}

export type StepKind = 'run' | 'progress' | 'cancelled' | 'finish';

export interface Step {
  kind: StepKind;
  at: number;
  /** New state; absent for a progress event, which changes no state. */
  to?: JobState;
  event: WebhookEventType;
  cause: string;
}

/** When a new job starts running, reports progress and finishes. A sync job finishes at its creation instant. */
export function planJob(behavior: Behavior, createdAt: number): Pick<JobTimes, 'running_at' | 'progress_at' | 'finish_at'> {
  if (behavior.mode === 'sync') {
    return { running_at: createdAt, progress_at: null, finish_at: behavior.outcome === 'never' ? null : createdAt };
  }
  const duration = behavior.duration_ms;
  return {
    running_at: createdAt + Math.min(100, Math.floor(duration / 10)),
    progress_at: duration >= 2 && behavior.items > 0 ? createdAt + Math.floor(duration / 2) : null,
    finish_at: behavior.outcome === 'never' ? null : createdAt + duration,
  };
}

function outcomeState(b: Behavior): JobState {
  return b.outcome === 'never' ? 'running' : b.outcome;
}

/** Every step due at or before `now`, in time order, each applied to the result of the previous one. */
export function dueSteps(job: JobTimes, now: number): Step[] {
  const steps: Step[] = [];
  let cur = { ...job };
  for (let s = nextStep(cur); s && s.at <= now; s = nextStep(cur)) {
    steps.push(s);
    cur = applyStep(cur, s);
  }
  return steps;
}

/** The earliest pending step, due or not; null when nothing more will ever happen on its own. */
export function nextStep(job: JobTimes): Step | null {
  const candidates: Step[] = [];
  if (job.state === 'queued') candidates.push({ kind: 'run', at: job.running_at, to: 'running', event: 'job.running', cause: 'started' });
  if ((job.state === 'running' || job.state === 'queued') && job.progress_at !== null) {
    candidates.push({ kind: 'progress', at: Math.max(job.progress_at, job.running_at), event: 'job.progress', cause: 'progress' });
  }
  if (job.state === 'cancelling' && job.cancel_effective_at !== null) {
    candidates.push({ kind: 'cancelled', at: job.cancel_effective_at, to: 'cancelled', event: 'job.cancelled', cause: 'cancel honoured' });
  }
  if ((job.state === 'running' || job.state === 'cancelling' || job.state === 'queued') && job.finish_at !== null) {
    const to = outcomeState(job.behavior);
    const cause = job.state === 'cancelling' ? `cancel lost the race: commit point passed` : 'finished';
    candidates.push({ kind: 'finish', at: Math.max(job.finish_at, job.running_at), to, event: `job.${to}` as WebhookEventType, cause });
  }
  if (candidates.length === 0) return null;
  // Ties: start before progress before finishing, so a zero-duration job still passes through running.
  const order: Record<StepKind, number> = { run: 0, progress: 1, cancelled: 2, finish: 3 };
  candidates.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);
  return candidates[0]!;
}

export function applyStep<T extends JobTimes>(job: T, step: Step): T {
  switch (step.kind) {
    case 'progress':
      return { ...job, progress_at: null };
    case 'run':
      return { ...job, state: 'running' };
    case 'cancelled':
      return { ...job, state: 'cancelled', cancel_effective_at: null, finish_at: null, progress_at: null };
    case 'finish':
      return { ...job, state: step.to!, finish_at: null, progress_at: null, cancel_effective_at: null };
  }
}

export type CancelOutcome =
  | { kind: 'terminal' }
  | { kind: 'repeated' }
  | {
      kind: 'accepted';
      wins: boolean;
      times: Pick<JobTimes, 'state' | 'cancel_requested_at' | 'cancel_effective_at' | 'finish_at' | 'progress_at'>;
    };

/**
 * A cancel is a request: before the commit point it wins (cancelled `cancel_ms` later); after it, the job ends
 * with its outcome. `cancel: "ignore"` leaves the job cancelling for ever.
 */
export function requestCancel(job: JobTimes, now: number): CancelOutcome {
  if (job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled' || job.state === 'expired')
    return { kind: 'terminal' };
  if (job.state === 'cancelling') return { kind: 'repeated' };
  const b = job.behavior;
  const base = { state: 'cancelling' as const, cancel_requested_at: now, progress_at: null };
  if (b.cancel === 'ignore') return { kind: 'accepted', wins: false, times: { ...base, cancel_effective_at: null, finish_at: null } };
  const commitAt = job.created_at + b.commit_point * b.duration_ms;
  const wins = b.outcome === 'never' || b.mode === 'sync' || now < commitAt;
  if (wins) return { kind: 'accepted', wins, times: { ...base, cancel_effective_at: now + b.cancel_ms, finish_at: null } };
  return { kind: 'accepted', wins, times: { ...base, cancel_effective_at: null, finish_at: job.finish_at } };
}

/** From when `progressAt` gives the same answer at every later time (−Infinity: at any time). */
export function progressSettledAt(job: Pick<JobTimes, 'state' | 'behavior' | 'created_at'>): number {
  if (job.state === 'succeeded' || job.state === 'queued' || job.behavior.progress_lies) return Number.NEGATIVE_INFINITY;
  // The fraction of the span that passed is capped at 1.
  return job.created_at + Math.max(1, job.behavior.duration_ms);
}

/** Informative progress: lags behind time, may lie (100 % while running), never a completion signal. */
export function progressAt(job: JobTimes, now: number): { completed: number; total: number } {
  const total = job.behavior.items;
  if (job.state === 'succeeded') return { completed: total, total };
  if (job.state === 'queued') return { completed: 0, total };
  if (job.behavior.progress_lies) return { completed: total, total };
  const span = Math.max(1, job.behavior.duration_ms);
  const fraction = Math.min(1, Math.max(0, (now - job.created_at) / span));
  // A running job never reports all items done by itself: only the final state says that.
  return { completed: Math.min(Math.max(0, total - 1), Math.floor(total * fraction)), total };
}
