/**
 * A fault plan's choices are a pure function of its seed and the request sequence: `decide` from fresh state gives
 * the same decisions every time, the persisted engine gives the same as the pure function (also across a restart),
 * and end to end two fresh providers fed the same plan and requests write the same journal, ids and times aside.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { decide, emptyFaultState, type FiredRule } from '../../../src/fake-provider/faults/decide.js';
import { FaultEngine } from '../../../src/fake-provider/faults/fault-engine.js';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import {
  FAULT_ROUTES,
  FaultPlanSchema,
  type FaultPlan,
  type FaultPlanInput,
  type FaultRoute,
  type JournalEntry,
} from '../../../src/contract/index.js';
import { openDatabase } from '../../../src/fake-provider/store/database.js';
import { SettingsRepo } from '../../../src/fake-provider/store/settings-repo.js';
import { faultPlanArb } from '../../../src/scenarios/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { createInit, createdJobIds, getInit, settle, track } from './helpers.js';

const routeArb = fc.constantFrom(...FAULT_ROUTES);
const REQUEST_FAULTS = [
  { type: 'lose_response', mode: 'reset' },
  { type: 'lose_response', mode: 'hang' },
  { type: 'fail_before_commit', status: 502 },
  { type: 'rate_limit', retry_after: 1 },
  { type: 'error_after_commit' },
  { type: 'delay', ms: 10 },
] as const;
const WEBHOOK_FAULTS = [{ type: 'duplicate', copies: 2 }, { type: 'reorder' }, { type: 'drop' }, { type: 'delay', ms: 10 }] as const;

/** Any valid plan over every fault route, with any probability in [0, 1] (not just the catalog's few values). */
const anyPlanArb: fc.Arbitrary<FaultPlan> = fc
  .record({
    seed: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    rules: fc.array(
      fc.record(
        {
          on: routeArb,
          f: fc.nat(),
          nth: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 })),
          probability: fc.double({ min: 0, max: 1, noNaN: true }),
          times: fc.integer({ min: 1, max: 4 }),
        },
        { requiredKeys: ['on', 'f'] },
      ),
      { maxLength: 8 },
    ),
  })
  .map(({ seed, rules }) =>
    FaultPlanSchema.parse({
      seed,
      rules: rules.map(({ on, f, ...sel }) => ({
        ...sel,
        on,
        fault: on === 'webhook' ? WEBHOOK_FAULTS[f % WEBHOOK_FAULTS.length] : REQUEST_FAULTS[f % REQUEST_FAULTS.length],
      })),
    }),
  );

type Decision = { rule_id: string; index: number; type: string } | null;
const brief = (f: FiredRule | null): Decision => (f ? { rule_id: f.rule_id, index: f.index, type: f.fault.type } : null);

function runPure(plan: FaultPlan, routes: FaultRoute[]): Decision[] {
  const state = emptyFaultState(plan);
  return routes.map((r) => brief(decide(plan, state, r)));
}

describe('decide is a pure function of seed and request sequence', () => {
  it('twice from fresh state: identical decisions', () => {
    fc.assert(
      fc.property(anyPlanArb, fc.array(routeArb, { maxLength: 60 }), (plan, routes) => {
        expect(runPure(plan, routes)).toEqual(runPure(plan, routes));
      }),
      { numRuns: 300 },
    );
  });

  it("a route's decisions depend only on the requests on that route", () => {
    fc.assert(
      fc.property(anyPlanArb, fc.array(routeArb, { maxLength: 60 }), (plan, routes) => {
        const all = runPure(plan, routes);
        for (const route of FAULT_ROUTES) {
          const mine = all.filter((_, i) => routes[i] === route);
          expect(
            runPure(
              plan,
              routes.filter((r) => r === route),
            ),
          ).toEqual(mine);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('the persisted FaultEngine decides as the pure function, also when reopened half-way (a provider restart)', () => {
    fc.assert(
      fc.property(anyPlanArb, fc.array(routeArb, { maxLength: 40 }), fc.nat(), (plan, routes, cut) => {
        const db = openDatabase(':memory:');
        try {
          const first = new FaultEngine(new SettingsRepo(db));
          first.install(plan);
          const k = routes.length === 0 ? 0 : cut % (routes.length + 1);
          const before = routes.slice(0, k).map((r) => brief(first.decide(r)));
          const reopened = new FaultEngine(new SettingsRepo(db));
          const after = routes.slice(k).map((r) => brief(reopened.decide(r)));
          expect([...before, ...after]).toEqual(runPure(plan, routes));
        } finally {
          db.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});

type Op =
  | { t: 'create'; key: number; changed: boolean }
  | { t: 'status' | 'cancel' | 'results'; job: number }
  | { t: 'list'; key: number | null }
  | { t: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('create' as const), key: fc.integer({ min: 0, max: 3 }), changed: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constantFrom('status' as const, 'cancel' as const, 'results' as const), job: fc.nat({ max: 4 }) }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('list' as const), key: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 1500 }) }) },
);

/** What must match between two runs: everything but ids and times. */
function shape(journal: JournalEntry[]): unknown[] {
  return journal.map((e) => {
    switch (e.type) {
      case 'request':
        return ['request', e.route, e.status, e.effect, e.delivery, e.fault?.rule_id ?? null, e.code];
      case 'transition':
        return ['transition', e.from, e.to, e.cause];
      case 'webhook':
        return ['webhook', e.event_type, e.attempt, e.outcome, e.fault?.rule_id ?? null];
      default:
        return e satisfies never;
    }
  });
}

const open: Provider[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

/** Run the ops against a fresh in-process provider; hung answers are given up on, delayed ones waited for. */
async function runProvider(plan: FaultPlanInput, ops: Op[]): Promise<JournalEntry[]> {
  const clock = new VirtualClock();
  const provider = createProvider({
    clock,
    behavior: { default: { duration_ms: 1000, items: 4 } },
    faults: plan,
    webhookFetch: async () => new Response(null, { status: 204 }),
  });
  open.push(provider);
  const jobPath = (n: number) => {
    const ids = createdJobIds(provider.journal.all());
    return `/v1/jobs/${ids.length ? ids[n % ids.length] : 'job_none'}`;
  };
  for (const op of ops) {
    if (op.t === 'advance') {
      await clock.advance(op.ms);
      continue;
    }
    const ac = new AbortController();
    const signal = ac.signal;
    let req: Promise<Response>;
    if (op.t === 'create') {
      const extra = { webhook_url: 'http://hooks.test/h', client_ref: `ref_${op.key}`, ...(op.changed ? { input: { other: true } } : {}) };
      req = provider.fetch('/v1/jobs', createInit(`key-${op.key}`, extra, { signal }));
    } else if (op.t === 'list') {
      req = provider.fetch(op.key === null ? '/v1/jobs' : `/v1/jobs?idempotency_key=key-${op.key}`, getInit({ signal }));
    } else if (op.t === 'cancel') {
      req = provider.fetch(`${jobPath(op.job)}/cancel`, getInit({ method: 'POST', signal }));
    } else {
      req = provider.fetch(op.t === 'results' ? `${jobPath(op.job)}/results` : jobPath(op.job), getInit({ signal }));
    }
    const pending = track(req);
    for (let i = 0; i < 4 && !pending.settled(); i++) {
      await settle();
      if (!pending.settled()) await clock.advance(500);
    }
    if (!pending.settled()) ac.abort();
    // A request held past the client's patience (the plans' delays reach 6 s) answers only when its hold ends: the
    // in-process fetch does not reject on abort while the provider holds it.
    for (let i = 0; i < 60 && !pending.settled(); i++) {
      await clock.advance(500);
      await settle();
    }
    try {
      const res = await pending.promise;
      await res.arrayBuffer();
    } catch {
      // A lost answer: what the client sees is checked elsewhere; here only the journal matters.
    }
  }
  await clock.advance(30_000);
  await provider.idle();
  return provider.journal.all();
}

describe('end to end: same plan, same requests, same journal', () => {
  it('two fresh providers produce identical journals modulo ids and times', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(faultPlanArb, fc.array(opArb, { minLength: 1, maxLength: 14 }), async (plan, ops) => {
        const a = await runProvider(plan, ops);
        const b = await runProvider(plan, ops);
        expect(shape(b)).toEqual(shape(a));
        // Also, no request ever failed on its own: every 5xx was injected.
        for (const e of a) if (e.type === 'request' && e.status >= 500) expect(e.fault).not.toBeNull();
        for (const e of a)
          if (e.type !== 'transition' && e.fault)
            seen.add(e.type === 'request' ? `${e.fault.type}/${e.delivery}` : `webhook:${e.fault.type}`);
      }),
      { numRuns: 40 },
    );
    // The runs did exercise faults (typically 8-10 kinds in 40 runs).
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });
});
