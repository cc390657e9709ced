import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyStep,
  dueSteps,
  nextStep,
  planJob,
  progressAt,
  progressSettledAt,
  requestCancel,
  type JobTimes,
  type Step,
} from '../../../src/fake-provider/engine/lifecycle.js';
import { BehaviorSchema, type Behavior, type BehaviorInput } from '../../../src/contract/behavior.js';
import { JOB_STATES, type JobState } from '../../../src/contract/jobs.js';

const RUNS = process.env.JOBPROOF_LONG ? 2000 : 200;
const T0 = 1_000_000;
const TERMINAL: JobState[] = ['succeeded', 'failed', 'cancelled', 'expired'];
const isTerminal = (s: JobState) => TERMINAL.includes(s);

const behavior = (b: BehaviorInput = {}): Behavior => BehaviorSchema.parse(b);

function newJob(b: Behavior, createdAt = T0): JobTimes {
  return {
    state: 'queued',
    behavior: b,
    created_at: createdAt,
    ...planJob(b, createdAt),
    cancel_requested_at: null,
    cancel_effective_at: null,
  };
}

/** Apply every step due by `now`; returns the job and the steps taken. */
function runTo(job: JobTimes, now: number): { job: JobTimes; steps: Step[] } {
  const steps = dueSteps(job, now);
  return { job: steps.reduce((j, s) => applyStep(j, s), job), steps };
}

/** Run to `at`, then ask for a cancel there (as the engine does). */
function cancelAt(job: JobTimes, at: number) {
  const before = runTo(job, at).job;
  const outcome = requestCancel(before, at);
  const after = outcome.kind === 'accepted' ? { ...before, ...outcome.times } : before;
  return { before, outcome, after };
}

/** Everything that happens until nothing more can, with a horizon for safety. */
function runOut(job: JobTimes, horizon = T0 + 10 ** 10) {
  return runTo(job, horizon);
}

const ALLOWED: Record<JobState, JobState[]> = {
  queued: ['running'],
  running: ['succeeded', 'failed', 'expired'],
  cancelling: ['cancelled', 'succeeded', 'failed', 'expired'],
  succeeded: [],
  failed: [],
  cancelled: [],
  expired: [],
};

const behaviorArb: fc.Arbitrary<Behavior> = fc
  .record({
    mode: fc.constantFrom('async' as const, 'async' as const, 'sync' as const),
    duration_ms: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 100_000 })),
    outcome: fc.constantFrom('succeeded' as const, 'failed' as const, 'expired' as const, 'never' as const),
    items: fc.integer({ min: 0, max: 50 }),
    commit_point: fc.oneof(fc.constantFrom(0, 0.5, 0.8, 1), fc.double({ min: 0, max: 1, noNaN: true })),
    cancel: fc.constantFrom('honour' as const, 'honour' as const, 'ignore' as const),
    cancel_ms: fc.integer({ min: 0, max: 5_000 }),
    progress_lies: fc.boolean(),
  })
  .chain((b) => fc.integer({ min: 0, max: b.items }).map((items_failed) => behavior({ ...b, items_failed })));

const offsetArb = fc.integer({ min: 0, max: 120_000 });

describe('lifecycle (unit)', () => {
  it('plans an async job: running soon after creation, progress halfway, finish after duration_ms', () => {
    expect(planJob(behavior({ duration_ms: 2_000 }), T0)).toEqual({ running_at: T0 + 100, progress_at: T0 + 1_000, finish_at: T0 + 2_000 });
    expect(planJob(behavior({ duration_ms: 500 }), T0)).toEqual({ running_at: T0 + 50, progress_at: T0 + 250, finish_at: T0 + 500 });
    expect(planJob(behavior({ duration_ms: 2_000, items: 0 }), T0).progress_at).toBeNull();
    expect(planJob(behavior({ outcome: 'never' }), T0).finish_at).toBeNull();
  });

  it('walks queued → running → succeeded in time order with the right events', () => {
    const job = newJob(behavior({ duration_ms: 2_000 }));
    const { job: end, steps } = runTo(job, T0 + 2_000);
    expect(steps.map((s) => [s.kind, s.at, s.to ?? null, s.event])).toEqual([
      ['run', T0 + 100, 'running', 'job.running'],
      ['progress', T0 + 1_000, null, 'job.progress'],
      ['finish', T0 + 2_000, 'succeeded', 'job.succeeded'],
    ]);
    expect(end.state).toBe('succeeded');
    expect(nextStep(end)).toBeNull();
    expect(dueSteps(job, T0 + 99)).toEqual([]);
  });

  it.each(['failed', 'expired'] as const)('ends %s when that is the outcome', (outcome) => {
    expect(runOut(newJob(behavior({ outcome }))).job.state).toBe(outcome);
  });

  it('a job with outcome never runs for ever', () => {
    const { job, steps } = runOut(newJob(behavior({ outcome: 'never' })));
    expect(job.state).toBe('running');
    expect(steps.map((s) => s.kind)).toEqual(['run', 'progress']);
    expect(nextStep(job)).toBeNull();
  });

  it('a zero-duration job still passes through running', () => {
    const { job, steps } = runTo(newJob(behavior({ duration_ms: 0 })), T0);
    expect(steps.map((s) => s.to).filter(Boolean)).toEqual(['running', 'succeeded']);
    expect(job.state).toBe('succeeded');
  });

  it('a sync job is finished at its creation instant', () => {
    const job = newJob(behavior({ mode: 'sync', duration_ms: 5_000 }));
    const { job: end, steps } = runTo(job, T0);
    expect(steps.map((s) => [s.kind, s.at])).toEqual([
      ['run', T0],
      ['finish', T0],
    ]);
    expect(end.state).toBe('succeeded');
  });

  it('a cancel before the commit point wins: cancelled cancel_ms later', () => {
    const job = newJob(behavior({ duration_ms: 10_000, commit_point: 0.5, cancel_ms: 200 }));
    const { outcome, after } = cancelAt(job, T0 + 4_999);
    expect(outcome).toMatchObject({ kind: 'accepted', wins: true });
    expect(after).toMatchObject({ state: 'cancelling', cancel_requested_at: T0 + 4_999, cancel_effective_at: T0 + 5_199, finish_at: null });
    expect(runTo(after, T0 + 5_198).job.state).toBe('cancelling');
    const { job: end, steps } = runTo(after, T0 + 5_199);
    expect(steps).toEqual([expect.objectContaining({ kind: 'cancelled', at: T0 + 5_199, to: 'cancelled', event: 'job.cancelled' })]);
    expect(runOut(end).steps).toEqual([]);
  });

  it('a cancel at or after the commit point loses: the job ends with its outcome at its finish time', () => {
    const job = newJob(behavior({ duration_ms: 10_000, commit_point: 0.5, outcome: 'failed' }));
    const { outcome, after } = cancelAt(job, T0 + 5_000);
    expect(outcome).toMatchObject({ kind: 'accepted', wins: false });
    expect(after).toMatchObject({
      state: 'cancelling',
      cancel_requested_at: T0 + 5_000,
      cancel_effective_at: null,
      finish_at: T0 + 10_000,
    });
    const { job: end, steps } = runOut(after);
    expect(steps).toEqual([
      expect.objectContaining({ kind: 'finish', at: T0 + 10_000, to: 'failed', cause: expect.stringContaining('commit point') }),
    ]);
    expect(end).toMatchObject({ state: 'failed', cancel_requested_at: T0 + 5_000 });
  });

  it('cancel: ignore keeps the job cancelling for ever', () => {
    const { outcome, after } = cancelAt(newJob(behavior({ cancel: 'ignore' })), T0 + 10);
    expect(outcome).toMatchObject({ kind: 'accepted', wins: false });
    const { job, steps } = runOut(after);
    expect(steps).toEqual([]);
    expect(job.state).toBe('cancelling');
    expect(requestCancel(job, T0 + 10 ** 9)).toEqual({ kind: 'repeated' });
  });

  it('a repeated cancel is "repeated" and a cancel of a terminal job is "terminal"', () => {
    const { after } = cancelAt(newJob(behavior()), T0 + 200);
    expect(requestCancel(after, T0 + 300)).toEqual({ kind: 'repeated' });
    const done = runOut(newJob(behavior())).job;
    expect(requestCancel(done, T0 + 10 ** 6)).toEqual({ kind: 'terminal' });
  });

  it('progress never reads 100 % while running, unless it lies', () => {
    const b = behavior({ duration_ms: 1_000, items: 10 });
    const running = runTo(newJob(b), T0 + 999).job;
    expect(running.state).toBe('running');
    expect(progressAt(running, T0 + 999)).toEqual({ completed: 9, total: 10 });
    expect(progressAt(running, T0 + 10 ** 9)).toEqual({ completed: 9, total: 10 });
    expect(progressAt(newJob(b), T0)).toEqual({ completed: 0, total: 10 });
    expect(progressAt(runOut(newJob(b)).job, T0 + 1_000)).toEqual({ completed: 10, total: 10 });
    const liar = runTo(newJob(behavior({ duration_ms: 1_000, items: 10, progress_lies: true })), T0 + 150).job;
    expect(liar.state).toBe('running');
    expect(progressAt(liar, T0 + 150)).toEqual({ completed: 10, total: 10 });
  });
});

describe('lifecycle (properties)', () => {
  it('steps come in time order, each due, each a legal transition; a terminal state never changes', () => {
    fc.assert(
      fc.property(behaviorArb, offsetArb, fc.option(offsetArb, { nil: null }), (b, horizon, cancelOffset) => {
        let job = newJob(b);
        if (cancelOffset !== null) job = cancelAt(job, T0 + cancelOffset).after;
        const start = job.state === 'cancelling' ? T0 + cancelOffset! : T0;
        const now = start + horizon;
        const steps = dueSteps(job, now);
        let cur = job;
        let last = -Infinity;
        for (const s of steps) {
          expect(s.at).toBeGreaterThanOrEqual(last);
          expect(s.at).toBeLessThanOrEqual(now);
          last = s.at;
          if (s.to) expect(ALLOWED[cur.state]).toContain(s.to);
          else expect(['queued', 'running']).toContain(cur.state);
          expect(s.event).toBe(s.to ? `job.${s.to}` : 'job.progress');
          cur = applyStep(cur, s);
        }
        // Nothing left due by `now`, and a terminal job has nothing left at all.
        const next = nextStep(cur);
        if (next) expect(next.at).toBeGreaterThan(now);
        if (isTerminal(cur.state)) {
          expect(next).toBeNull();
          expect(dueSteps(cur, now + 10 ** 12)).toEqual([]);
          expect(requestCancel(cur, now).kind).toBe('terminal');
        }
        // At most one state-changing step per state; never more than four in all.
        expect(steps.filter((s) => s.to).length).toBeLessThanOrEqual(3);
      }),
      { numRuns: RUNS },
    );
  });

  it('advancing in two hops gives the same steps as one hop', () => {
    fc.assert(
      fc.property(behaviorArb, offsetArb, offsetArb, (b, x, y) => {
        const job = newJob(b);
        const [t1, t2] = [T0 + Math.min(x, y), T0 + Math.max(x, y)];
        const first = runTo(job, t1);
        const second = runTo(first.job, t2);
        expect([...first.steps, ...second.steps]).toEqual(dueSteps(job, t2));
        expect(second.job).toEqual(runTo(job, t2).job);
      }),
      { numRuns: RUNS },
    );
  });

  it('without a cancel, a job ends with its outcome at created_at + duration (sync: at once); never runs for ever', () => {
    fc.assert(
      fc.property(behaviorArb, (b) => {
        const job = newJob(b);
        const { job: end, steps } = runOut(job);
        if (b.outcome === 'never') {
          expect(end.state).toBe('running');
          return;
        }
        expect(end.state).toBe(b.outcome);
        expect(steps.at(-1)!.at).toBe(b.mode === 'sync' ? T0 : T0 + b.duration_ms);
        expect(steps[0]).toMatchObject({ kind: 'run', to: 'running' });
      }),
      { numRuns: RUNS },
    );
  });

  it('a cancel before the commit point ends cancelled cancel_ms later; after it, the job ends with its outcome; ignore stays cancelling', () => {
    fc.assert(
      fc.property(behaviorArb, offsetArb, (b, offset) => {
        const at = T0 + offset;
        const { before, outcome, after } = cancelAt(newJob(b), at);
        if (isTerminal(before.state)) {
          expect(outcome.kind).toBe('terminal');
          return;
        }
        expect(outcome.kind).toBe('accepted');
        expect(after.state).toBe('cancelling');
        expect(after.cancel_requested_at).toBe(at);
        expect(requestCancel(after, at).kind).toBe('repeated');
        const { job: end, steps } = runOut(after);
        expect(end.cancel_requested_at).toBe(at);
        if (b.cancel === 'ignore') {
          expect(end.state).toBe('cancelling');
          expect(steps).toEqual([]);
          return;
        }
        const commitAt = T0 + b.commit_point * b.duration_ms;
        const wins = b.outcome === 'never' || b.mode === 'sync' || at < commitAt;
        if (wins) {
          expect(end.state).toBe('cancelled');
          expect(steps.at(-1)!.at).toBe(at + b.cancel_ms);
        } else {
          expect(end.state).toBe(b.outcome);
          expect(steps.at(-1)!.at).toBe(T0 + b.duration_ms);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('progress is within bounds, never complete while running unless it lies, complete once succeeded', () => {
    fc.assert(
      fc.property(behaviorArb, offsetArb, offsetArb, (b, x, y) => {
        const job = newJob(b);
        const [t1, t2] = [T0 + Math.min(x, y), T0 + Math.max(x, y)];
        const j1 = runTo(job, t1).job;
        const p1 = progressAt(j1, t1);
        expect(p1.total).toBe(b.items);
        expect(p1.completed).toBeGreaterThanOrEqual(0);
        expect(p1.completed).toBeLessThanOrEqual(b.items);
        if (j1.state === 'running' && !b.progress_lies && b.items > 0) expect(p1.completed).toBeLessThan(b.items);
        if (j1.state === 'running' && b.progress_lies) expect(p1.completed).toBe(b.items);
        if (j1.state === 'succeeded') expect(p1.completed).toBe(b.items);
        const j2 = runTo(j1, t2).job;
        if (j1.state === 'running' && j2.state === 'running') expect(progressAt(j2, t2).completed).toBeGreaterThanOrEqual(p1.completed);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('progressSettledAt', () => {
  it('from the settled time on, progress is the same at every later time', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...JOB_STATES),
        fc.integer({ min: 0, max: 100_000 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (state, duration, lies, items, created, later) => {
          const behavior = BehaviorSchema.parse({ duration_ms: duration, progress_lies: lies, items });
          const job = {
            state,
            behavior,
            created_at: created,
            running_at: created,
            progress_at: null,
            finish_at: null,
            cancel_requested_at: null,
            cancel_effective_at: null,
          };
          const settled = progressSettledAt(job);
          const from = Number.isFinite(settled) ? settled : created - 5_000;
          expect(progressAt(job, from + later)).toEqual(progressAt(job, from));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
