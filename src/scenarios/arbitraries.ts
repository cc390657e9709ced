import fc from 'fast-check';
import type { BehaviorInput } from '../contract/behavior.js';
import type { FaultPlanInput, RequestRoute } from '../contract/faults.js';
import { INVARIANT_IDS } from '../contract/invariants.js';
import type { HarnessActionInput } from './actions.js';
import type { ScenarioInput } from './schema.js';

/**
 * fast-check arbitraries for property-based conformance runs. Every value they produce parses with
 * ScenarioSchema by construction: references are made from indices with `map` (never `chain`), so shrinking
 * stays effective and a shrunk failure can be written out as a scenario file as is.
 */

const KINDS = ['report', 'export', 'batch'] as const;

const behaviorArb: fc.Arbitrary<BehaviorInput> = fc
  .record({
    mode: fc.constantFrom('async' as const, 'sync' as const),
    duration_ms: fc.integer({ min: 0, max: 3000 }),
    outcome: fc.constantFrom('succeeded' as const, 'failed' as const, 'expired' as const, 'never' as const),
    items: fc.integer({ min: 0, max: 20 }),
    failedShare: fc.integer({ min: 0, max: 100 }),
    commit_point: fc.constantFrom(0, 0.2, 0.5, 0.8, 1),
    one_shot_results: fc.boolean(),
    corrupt_digest: fc.boolean(),
    error_row: fc.boolean(),
    progress_lies: fc.boolean(),
    cancel: fc.constantFrom('honour' as const, 'ignore' as const),
  })
  // items_failed ≤ items by construction: a share of items rather than a free count.
  .map(({ failedShare, ...b }) => ({ ...b, items_failed: Math.floor((b.items * failedShare) / 100) }));

const operationSpecArb = fc.record({
  kind: fc.constantFrom(...KINDS),
  at_ms: fc.integer({ min: 0, max: 1000 }),
  create_deadline_ms: fc.integer({ min: 500, max: 5000 }),
  result_deadline_ms: fc.integer({ min: 1000, max: 10_000 }),
});

const cancelSpecArb = fc.record({
  opIndex: fc.nat(),
  at_ms: fc.integer({ min: 0, max: 4000 }),
  cancel_deadline_ms: fc.integer({ min: 200, max: 4000 }),
  // Timed by a held request (`request_held`, then at_ms modulo 1 s) rather than the clock: a cancel that meets a
  // create still held at the provider, which a clock time alone hits once in hundreds of schedules.
  onHold: fc.boolean(),
});

export interface GeneratedWorkload {
  workload: ScenarioInput['workload'];
  behavior: NonNullable<ScenarioInput['behavior']>;
  actions: HarnessActionInput[];
}

/** 1–5 operations (ids op_1…), a behaviour per kind (durations, outcomes, items), and cancels at random times. */
export const workloadArb: fc.Arbitrary<GeneratedWorkload> = fc
  .record({
    ops: fc.array(operationSpecArb, { minLength: 1, maxLength: 5 }),
    byKind: fc.record({ report: behaviorArb, export: behaviorArb, batch: behaviorArb }),
    cancels: fc.array(cancelSpecArb, { maxLength: 3 }),
  })
  .map(({ ops, byKind, cancels }) => ({
    // Each operation's input names its own account, so different operations never carry the same request. The first
    // arrives at 0 ms: a worker started with nothing open exits at once (`work` runs until every operation is
    // final), so if every operation arrived later the scenario's workers would be gone before any work came, a
    // rescue worker would do it all, and the pauses and kills aimed at worker-N would meet no one.
    workload: ops.map((o, i) => ({
      operation_id: `op_${i + 1}`,
      input: { account: `acct_${i + 1}` },
      ...o,
      ...(i === 0 ? { at_ms: 0 } : {}),
    })),
    behavior: { by_kind: byKind },
    actions: cancels.map((c) => ({
      type: 'cancel' as const,
      operation: `op_${(c.opIndex % ops.length) + 1}`,
      ...(c.onHold ? { after: { event: 'request_held' as const }, delay_ms: c.at_ms % 1000 } : { at_ms: c.at_ms }),
      cancel_deadline_ms: c.cancel_deadline_ms,
    })),
  }));

/**
 * A hold: mostly short, sometimes past a create or cancel deadline (the drawn deadlines go from 200 ms up), so that a
 * client which takes "no job yet" at its deadline for "no job ever" meets the create that executes afterwards.
 */
const delayMsArb = fc.oneof(fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 2000, max: 6000 }));

/** The jobs API's routes (the fault routes of the other APIs are not drawn: random schedules speak the native API). */
const JOB_ROUTES = ['create', 'status', 'list', 'cancel', 'results'] as const satisfies readonly RequestRoute[];
type JobRoute = (typeof JOB_ROUTES)[number];
const requestRouteArb = fc.constantFrom(...JOB_ROUTES);

const requestFaultArb = fc.oneof(
  fc.record({ type: fc.constant('lose_response' as const), mode: fc.constantFrom('reset' as const, 'hang' as const) }),
  fc.record({
    type: fc.constant('fail_before_commit' as const),
    status: fc.constantFrom(500 as const, 502 as const, 503 as const),
    retry_after: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('rate_limit' as const), retry_after: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ type: fc.constant('error_after_commit' as const) }),
  fc.record({ type: fc.constant('delay' as const), ms: delayMsArb }),
);

const webhookFaultArb = fc.oneof(
  fc.record({ type: fc.constant('duplicate' as const), copies: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ type: fc.constant('reorder' as const) }),
  fc.record({ type: fc.constant('drop' as const) }),
  fc.record({ type: fc.constant('delay' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
  // A delivery the provider never made, beside the real ones: a client must verify before it believes.
  fc.record({
    type: fc.constant('forge' as const),
    signature: fc.constantFrom('none' as const, 'wrong_secret' as const),
    claim: fc.constantFrom('succeeded' as const, 'failed' as const, 'cancelled' as const, 'expired' as const),
  }),
);

/** When a rule fires: on some nth requests, or with a probability, optionally a limited number of times. */
const selectorArb = fc.record(
  {
    nth: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.uniqueArray(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 3 })),
    probability: fc.constantFrom(0.1, 0.25, 0.5, 1),
    times: fc.integer({ min: 1, max: 3 }),
  },
  { requiredKeys: [] },
);

const ruleArb = fc.oneof(
  fc.record({ on: requestRouteArb, fault: requestFaultArb, sel: selectorArb }),
  // foreign_job_id only acts on a replayed create: drawn with the lost answer that makes the client replay (as the
  // catalog's foreign-job-id has it), else it waits for a loss some other rule may never cause.
  fc.record({
    on: fc.constant('create' as const),
    fault: fc.constant({ type: 'foreign_job_id' as const }),
    sel: selectorArb,
    replayOf: fc.option(fc.record({ nth: fc.integer({ min: 1, max: 3 }), mode: fc.constantFrom('reset' as const, 'hang' as const) }), {
      nil: undefined,
      freq: 4,
    }),
  }),
  fc.record({ on: fc.constant('webhook' as const), fault: webhookFaultArb, sel: selectorArb }),
);

/**
 * Flapping 5xx (the catalog's flapping-5xx, at a drawn rate), in a third of the plans: a 5xx on a route the client
 * calls once (a results fetch, a cancel) is otherwise one rule in seventy-five, whose nth must also hit.
 */
const flapArb = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  {
    arbitrary: fc.record({
      probability: fc.constantFrom(0.1, 0.25, 0.5),
      status: fc.constantFrom(500 as const, 502 as const, 503 as const),
    }),
    weight: 1,
  },
);

/** A fault plan with 0–6 rules over every route of the jobs API, webhooks included; valid by construction. */
export const faultPlanArb: fc.Arbitrary<FaultPlanInput> = fc
  .record({ seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }), rules: fc.array(ruleArb, { maxLength: 6 }), flap: flapArb })
  .map(({ seed, rules, flap }) => ({
    seed,
    rules: [
      ...rules.flatMap((r, i) =>
        'replayOf' in r && r.replayOf
          ? [
              { id: `r${i + 1}-lost`, on: r.on, nth: r.replayOf.nth, fault: { type: 'lose_response' as const, mode: r.replayOf.mode } },
              { id: `r${i + 1}`, on: r.on, nth: r.replayOf.nth + 1, fault: r.fault },
            ]
          : [{ id: `r${i + 1}`, on: r.on, fault: r.fault, ...r.sel }],
      ),
      ...(flap
        ? JOB_ROUTES.map((on) => ({
            id: `flap-${on}`,
            on,
            probability: flap.probability,
            fault: { type: 'fail_before_commit' as const, status: flap.status },
          }))
        : []),
    ],
  }));

export interface GeneratedHarness {
  workers: number;
  lease_ms: number;
  actions: HarnessActionInput[];
}

const harnessEventArb = fc.record({
  kind: fc.constantFrom('crash' as const, 'pause' as const, 'restart' as const),
  workerIndex: fc.nat(),
  at_ms: fc.integer({ min: 0, max: 4000 }),
  restartWorker: fc.boolean(),
  extraMs: fc.integer({ min: 1, max: 1500 }),
  // A pause or kill timed by a held request rather than the clock (`request_held`, then at_ms modulo 500 ms): by any
  // held request, or by one of the worker's own — then it is waiting on the network mid-operation with its lease
  // held, where a takeover, and a resume under a lost lease, happen.
  timing: fc.constantFrom('clock' as const, 'held' as const, 'own' as const),
  // A pause that also lasts until another worker has acted for the first operation (as stale-lease's does, bounded
  // 4 s past the pause's own length): a worker that resumes before anyone took over leaves no stale lease to judge.
  untilTakeover: fc.boolean(),
});

/** Crashes (optionally followed by a fresh worker), pauses past the lease, provider restarts, at random times. */
export const harnessScheduleArb: fc.Arbitrary<GeneratedHarness> = fc
  .record({
    workers: fc.integer({ min: 1, max: 3 }),
    lease_ms: fc.integer({ min: 200, max: 2000 }),
    events: fc.array(harnessEventArb, { maxLength: 4 }),
  })
  .map(({ workers, lease_ms, events }) => {
    const actions: HarnessActionInput[] = [];
    let fresh = workers;
    events.forEach((e, i) => {
      const worker = `worker-${(e.workerIndex % workers) + 1}`;
      if (e.kind === 'restart') {
        actions.push({ type: 'restart_provider', at_ms: e.at_ms, down_ms: e.extraMs % 500 });
        return;
      }
      const when =
        e.timing === 'clock'
          ? { at_ms: e.at_ms }
          : { after: { event: 'request_held' as const, ...(e.timing === 'own' ? { worker } : {}) }, delay_ms: e.at_ms % 500 };
      if (e.kind === 'pause') {
        const resume_after_ms = lease_ms + e.extraMs;
        const other = `worker-${((e.workerIndex + 1) % workers) + 1}`;
        const takeover =
          e.untilTakeover && workers > 1
            ? { resume_after: { event: 'worker_acted' as const, worker: other, operation: 'op_1' }, resume_by_ms: resume_after_ms + 4000 }
            : {};
        actions.push({ type: 'pause_worker', worker, ...when, resume_after_ms, ...takeover });
      } else {
        actions.push({ type: 'kill_worker', id: `kill-${i + 1}`, worker, ...when });
        // A fresh id per replacement, so that the journal tells the old process from the new one.
        if (e.restartWorker) {
          actions.push({
            type: 'start_worker',
            worker: `worker-${++fresh}`,
            after: { event: 'action_done', action: `kill-${i + 1}` },
            delay_ms: e.extraMs,
          });
        }
      }
    });
    return { workers, lease_ms, actions };
  });

/**
 * Half the holds are on a create: of the catalog's four holds three are (a cancel, a change of parameters or a kill
 * meeting a create the provider has not executed yet), and a create held past a cancel deadline is the shape that
 * tells "no job yet" from "no job ever".
 */
const holdRouteArb = fc.oneof(
  fc.constant('create' as const),
  fc.constantFrom('status' as const, 'list' as const, 'cancel' as const, 'results' as const),
);

/**
 * One request the provider holds (a `delay` of one of the first two requests on a route), in half the schedules: what
 * the actions timed by `request_held` wait for. Without it they wait for a random delay rule that few plans have.
 */
const holdArb = fc.option(fc.record({ on: holdRouteArb, nth: fc.integer({ min: 1, max: 2 }), ms: fc.integer({ min: 500, max: 6000 }) }), {
  nil: undefined,
  freq: 2,
});

/** A whole Scenario-shaped schedule: workload, provider faults and harness events together. */
export const scheduleArb: fc.Arbitrary<ScenarioInput> = fc
  .record({ w: workloadArb, faults: faultPlanArb, h: harnessScheduleArb, webhooks: fc.boolean(), hold: holdArb })
  .map(({ w, faults: drawn, h, webhooks, hold }) => {
    const faults = withHold(drawn, hold);
    return {
      name: 'generated',
      title: 'Generated schedule',
      what_happens: 'A random workload under a random fault plan and harness schedule (fast-check).',
      invariants: [...INVARIANT_IDS],
      behavior: w.behavior,
      faults,
      workload: w.workload,
      actions: [...w.actions, ...h.actions],
      // Webhook faults only do something when the client listens; turn webhooks on when a rule needs them.
      webhooks: webhooks || (faults.rules ?? []).some((r) => r.on === 'webhook'),
      lease_ms: h.lease_ms,
      workers: h.workers,
      quiet_timeout_ms: 2000,
    };
  });

function withHold(plan: FaultPlanInput, hold: { on: JobRoute; nth: number; ms: number } | undefined): FaultPlanInput {
  if (!hold) return plan;
  const rule = { id: 'hold', on: hold.on, nth: hold.nth, fault: { type: 'delay' as const, ms: hold.ms } };
  return { ...plan, rules: [...(plan.rules ?? []), rule] };
}
