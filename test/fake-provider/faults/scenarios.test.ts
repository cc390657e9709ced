/**
 * Every catalog scenario loads, validates, and its provider-side part runs against the provider: behaviour and
 * fault plan installed, the workload's creates submitted in-process on a virtual clock (losses caught and retried
 * with the same key, as a client would), its provider-side actions carried out (cancels, a changed resubmission,
 * a provider restart on the same database), the jobs polled to the end and their results fetched. No 5xx but
 * injected ones, no exception, at most one job per operation, and each scenario shows the effect it is named for.
 * Then `PUT /_control/scenario` switches a running provider to a catalog scenario.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import { BehaviorConfigSchema, FaultPlanSchema, type Job, type RequestEntry } from '../../../src/contract/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { catalog, getScenario, ScenarioSchema, type Scenario, type WorkloadOperation } from '../../../src/scenarios/index.js';
import {
  controlInit,
  getInit,
  inProcessReceiver,
  outcome,
  requests,
  settle,
  TOKEN,
  track,
  webhookEntries,
  type ReceivedWebhook,
} from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'jobproof-faults-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled', 'expired']);

interface OpRun {
  op: string;
  key: string;
  /** Job ids the create answers named (a foreign replay names one the key never created). */
  answered: string[];
  createStatuses: number[];
  jobId: string | null;
  final: Job | null;
  reads: Job[];
  results: Array<{ status: number; body: string; digest: string | null; itemsFailed: string | null }>;
}

interface Run {
  provider: Provider;
  ops: Map<string, OpRun>;
  received: ReceivedWebhook[];
  changedStatus: number | null;
}

function retryAfterMs(res: Response): number {
  const s = Number(res.headers.get('retry-after'));
  return Number.isFinite(s) && s > 0 ? s * 1000 : 250;
}

/** The provider-side part of one scenario, driven like a careful single client would on a virtual clock. */
async function runScenario(s: Scenario): Promise<Run> {
  const clock = new VirtualClock();
  const receiver = inProcessReceiver(clock);
  const restarts = s.actions.some((a) => a.type === 'restart_provider');
  const db = restarts ? join(tmp, `${s.name}.db`) : ':memory:';
  let provider = createProvider({ db, clock, behavior: s.behavior, faults: s.faults, webhookFetch: receiver.fetch });
  const t0 = clock.now();
  const ops = new Map<string, OpRun>();
  const answeredAt = new Map<string, number>();
  const doneAt = new Map<string, number>();
  let changedStatus: number | null = null;

  const call = (path: string, init: RequestInit) => provider.fetch(path, init);
  const createInitFor = (op: WorkloadOperation, key: string, signal: AbortSignal, input = op.input): RequestInit => ({
    method: 'POST',
    signal,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      kind: op.kind,
      input,
      client_ref: op.operation_id,
      ...(s.webhooks ? { webhook_url: `http://receiver.test/hooks/${op.operation_id}` } : {}),
    }),
  });

  /**
   * A request given up on may still be held by a `delay` fault and execute later (the fetch itself rejects at the
   * abort, as a real one does): this careful client reconciles only once the provider holds nothing of it.
   */
  async function holdEnds(pending: { settled(): boolean }): Promise<void> {
    await settle();
    while (!pending.settled() || provider.heldRequests() > 0) {
      await clock.advance(100);
      await settle();
    }
  }

  /** One request: wait (advancing the clock) until answered or `giveUpMs` passed, then abort it. */
  async function send(make: (signal: AbortSignal) => Promise<Response>, giveUpMs: number): Promise<Response | null> {
    const ac = new AbortController();
    const pending = track(make(ac.signal));
    const until = clock.now() + giveUpMs;
    await settle();
    while (!pending.settled() && clock.now() < until) {
      await clock.advance(Math.min(100, until - clock.now()));
      await settle();
    }
    if (!pending.settled()) ac.abort();
    await holdEnds(pending);
    const r = await outcome(pending.promise);
    return r.ok ? r.value : null; // null: the answer was lost (reset, or hung until we gave up)
  }

  /** Retry a request through injected faults; stop at the first answer that is not a 429/5xx/409-in-progress. */
  async function retrying(make: (signal: AbortSignal) => Promise<Response>, deadline: number, giveUpMs = 2000): Promise<Response | null> {
    while (clock.now() <= deadline) {
      const res = await send(make, giveUpMs);
      if (res && res.status !== 429 && res.status < 500 && !(res.status === 409 && res.headers.get('retry-after'))) return res;
      if (res) await res.arrayBuffer();
      await clock.advance(res ? retryAfterMs(res) : 200);
    }
    return null;
  }

  async function findByKey(key: string): Promise<string | null> {
    const res = await retrying(
      (signal) => call(`/v1/jobs?idempotency_key=${encodeURIComponent(key)}`, getInit({ signal })),
      clock.now() + 30_000,
    );
    if (res?.status !== 200) return null;
    const data = ((await res.json()) as { data: Job[] }).data;
    return data[0]?.job_id ?? null;
  }

  async function submit(op: WorkloadOperation, input = op.input, onFirstSent?: () => Promise<void>): Promise<void> {
    const run: OpRun = {
      op: op.operation_id,
      key: `${s.name}/${op.operation_id}`,
      answered: [],
      createStatuses: [],
      jobId: null,
      final: null,
      reads: [],
      results: [],
    };
    ops.set(op.operation_id, run);
    const deadline = clock.now() + op.create_deadline_ms;
    let first = true;
    while (clock.now() <= deadline) {
      const ac = new AbortController();
      const pending = track(call('/v1/jobs', createInitFor(op, run.key, ac.signal, input)));
      if (first && onFirstSent) await onFirstSent();
      first = false;
      await settle();
      while (!pending.settled() && clock.now() < deadline) {
        await clock.advance(Math.min(100, deadline - clock.now()));
        await settle();
      }
      if (!pending.settled()) ac.abort();
      await holdEnds(pending);
      const r = await outcome(pending.promise);
      if (!r.ok) {
        await clock.advance(200);
        continue;
      }
      const res = r.value;
      run.createStatuses.push(res.status);
      if (res.status === 200 || res.status === 202) {
        run.answered.push(((await res.json()) as { job_id: string }).job_id);
        answeredAt.set(op.operation_id, clock.now());
        break;
      }
      await res.arrayBuffer();
      if (res.status === 429 || res.status >= 500 || res.status === 409) await clock.advance(retryAfterMs(res));
      else throw new Error(`${s.name}: create of ${op.operation_id} refused with ${res.status}`);
    }
    // Reconcile: the truth is what the key created, whatever the answer said.
    run.jobId = await findByKey(run.key);
  }

  async function changedResubmit(a: Extract<Scenario['actions'][number], { type: 'submit_changed' }>): Promise<void> {
    const op = s.workload.find((o) => o.operation_id === a.operation)!;
    const res = await send((signal) => call('/v1/jobs', createInitFor(op, `${s.name}/${op.operation_id}`, signal, a.input)), 2000);
    changedStatus = res?.status ?? null;
    await res?.arrayBuffer();
  }

  // Creates, in workload order; a changed resubmission fires while the first create of its operation is in flight.
  const changed = s.actions.filter((a) => a.type === 'submit_changed');
  for (const op of [...s.workload].sort((a, b) => a.at_ms - b.at_ms)) {
    if (clock.now() < t0 + op.at_ms) await clock.advanceTo(t0 + op.at_ms);
    const mine = changed.find((a) => a.operation === op.operation_id);
    await submit(op, op.input, mine ? () => changedResubmit(mine) : undefined);
  }
  for (const a of changed) {
    const op = s.workload.find((o) => o.operation_id === a.operation)!;
    await submit({ ...op, operation_id: a.new_operation_id }, a.input);
  }

  /** Virtual time at which the operation's job reached `state` (advancing the clock until it does, bounded). */
  async function reachedState(operation: string, state: string): Promise<number> {
    const jobId = ops.get(operation)?.jobId;
    const until = clock.now() + 60_000;
    while (jobId && clock.now() < until && provider.jobs().find((j) => j.job_id === jobId)?.state !== state) await clock.advance(100);
    return clock.now();
  }

  // The provider-side actions, in order; worker actions (kill, start, pause) have no provider-side part.
  for (const [i, a] of s.actions.entries()) {
    if (a.after?.event === 'job_state') await reachedState(a.after.operation, a.after.state);
    const ref =
      a.at_ms !== undefined
        ? t0 + a.at_ms
        : a.after?.event === 'create_answered'
          ? (answeredAt.get(a.after.operation) ?? clock.now())
          : a.after?.event === 'action_done'
            ? (doneAt.get(a.after.action) ?? clock.now())
            : clock.now();
    const at = ref + a.delay_ms;
    if (a.type === 'cancel' || a.type === 'restart_provider') {
      if (clock.now() < at) await clock.advanceTo(at);
    }
    if (a.type === 'cancel') {
      const jobId = ops.get(a.operation)?.jobId;
      expect(jobId, `${s.name}: job of ${a.operation}`).toBeTruthy();
      const res = await retrying(
        (signal) =>
          call(`/v1/jobs/${jobId}/cancel`, { ...getInit({ signal }), method: 'POST', body: JSON.stringify({ reason: a.reason }) }),
        clock.now() + a.cancel_deadline_ms,
      );
      expect([202, 409]).toContain(res?.status);
      await res?.arrayBuffer();
    } else if (a.type === 'restart_provider') {
      provider.close();
      await clock.advance(a.down_ms);
      // Same database, nothing re-installed: behaviour, fault plan and its counters come back from the store.
      provider = createProvider({ db, clock, webhookFetch: receiver.fetch });
    }
    doneAt.set(a.id ?? `#${i}`, clock.now());
  }

  // Observe every job to its end (or the operation's result deadline), then fetch its results twice.
  for (const run of ops.values()) {
    if (!run.jobId) continue;
    const op = s.workload.find((o) => o.operation_id === run.op) ?? s.workload[0]!;
    const deadline = clock.now() + op.result_deadline_ms;
    while (clock.now() <= deadline) {
      const res = await retrying((signal) => call(`/v1/jobs/${run.jobId}`, getInit({ signal })), deadline);
      if (!res) break;
      expect(res.status).toBe(200);
      const job = (await res.json()) as Job;
      run.reads.push(job);
      run.final = job;
      if (TERMINAL.has(job.state)) break;
      await clock.advance(200);
    }
    if (run.final?.state === 'succeeded') {
      for (let i = 0; i < 2; i++) {
        const res = await retrying((signal) => call(`/v1/jobs/${run.jobId}/results`, getInit({ signal })), clock.now() + 30_000);
        if (!res) continue;
        run.results.push({
          status: res.status,
          body: await res.text(),
          digest: res.headers.get('content-digest'),
          itemsFailed: res.headers.get('x-items-failed'),
        });
      }
    }
  }
  await clock.advance(30_000);
  await provider.idle();
  return { provider, ops, received: receiver.received, changedStatus };
}

const digestOf = (body: string) => `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
const creates = (r: Run): RequestEntry[] => requests(r.provider.journal.all()).filter((e) => e.route === 'create');
const only = (r: Run): OpRun => [...r.ops.values()][0]!;

/** What each scenario is named for, seen at the provider. */
const EXPECT: Record<string, (r: Run) => void> = {
  'lost-create-response': (r) => {
    expect(creates(r)[0]).toMatchObject({ effect: 'created', delivery: 'lost', fault: { rule_id: 'lose-first-create' } });
    expect(creates(r)[1]).toMatchObject({ effect: 'replayed' });
    expect(only(r).final?.state).toBe('succeeded');
  },
  'crash-after-job-id': (r) => expect(only(r).final?.state).toBe('succeeded'),
  'cancel-after-end': (r) => {
    // The cancel arrives once the job has succeeded: 409 job_terminal, and the job stays succeeded.
    const cancels = requests(r.provider.journal.all()).filter((e) => e.route === 'cancel');
    expect(cancels.map((e) => [e.status, e.code])).toEqual([[409, 'job_terminal']]);
    expect(only(r).final?.state).toBe('succeeded');
  },
  'cancel-race': (r) => {
    expect(requests(r.provider.journal.all()).some((e) => e.effect === 'cancel_requested')).toBe(true);
    expect(only(r).final).toMatchObject({ state: 'succeeded', cancel_requested_at: expect.any(String) });
  },
  'duplicate-webhook': (r) => {
    expect(r.received.length).toBeGreaterThan(0);
    const counts = new Map<string, number>();
    for (const w of r.received) counts.set(w.id, (counts.get(w.id) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 2)).toBe(true);
  },
  'stale-lease': (r) => expect(only(r).final?.state).toBe('cancelled'),
  'create-hang': (r) => {
    expect(creates(r).length).toBeGreaterThan(0);
    expect(creates(r).every((e) => e.delivery === 'lost')).toBe(true);
    expect(only(r).answered).toEqual([]);
    expect(only(r).jobId).not.toBeNull();
  },
  'rate-limited': (r) => {
    const polls = requests(r.provider.journal.all()).filter((e) => e.route === 'status');
    expect(polls.slice(0, 3).map((e) => [e.status, e.retry_after, e.fault?.rule_id])).toEqual(Array(3).fill([429, 1, 'limit-polls']));
    expect(only(r).final?.state).toBe('succeeded');
  },
  'flapping-5xx': (r) => {
    const injected = requests(r.provider.journal.all()).filter((e) => e.fault?.type === 'fail_before_commit');
    expect(injected.length).toBeGreaterThan(0);
    for (const run of r.ops.values()) expect(run.final?.state).toBe('succeeded');
  },
  'error-after-commit': (r) => {
    expect(creates(r)[0]).toMatchObject({ status: 500, effect: 'created', fault: { rule_id: 'err-first-create' } });
    expect(creates(r)[1]).toMatchObject({ status: 202, effect: 'replayed' });
  },
  'changed-parameters': (r) => {
    expect(r.changedStatus).toBe(422);
    expect(requests(r.provider.journal.all()).some((e) => e.code === 'idempotency_key_reused')).toBe(true);
    expect(r.ops.get('op_2')?.jobId).toBeTruthy();
    expect(r.ops.get('op_2')?.jobId).not.toBe(r.ops.get('op_1')?.jobId);
  },
  'foreign-job-id': (r) => {
    expect(creates(r).map((e) => e.effect)).toEqual(['created', 'foreign_replay']);
    expect(only(r).answered).toHaveLength(1);
    expect(only(r).answered[0]).not.toBe(only(r).jobId);
  },
  'never-finishes': (r) => expect(only(r).final?.state).toBe('running'),
  'cancel-unconfirmed': (r) => expect(only(r).final?.state).toBe('cancelling'),
  'cancel-while-create-held': (r) => {
    // The first create is held 6 s, then executes: the key's one job exists although nothing answered in time. The
    // sender gave up on it long before (a 2 s give-up here, a killed worker in the scenario): journalled lost.
    expect(creates(r)[0]).toMatchObject({ delivery: 'lost', effect: 'created' });
    expect(only(r).jobId).not.toBeNull();
  },
  'partial-batch': (r) => {
    expect(only(r).results[0]).toMatchObject({ status: 200, itemsFailed: '2' });
    expect(
      only(r)
        .results[0]!.body.split('\n')
        .filter((l) => l.includes('"status":"failed"')),
    ).toHaveLength(2);
  },
  'corrupt-result': (r) => {
    const res = only(r).results[0]!;
    expect(res.status).toBe(200);
    expect(res.digest).not.toBe(digestOf(res.body));
  },
  'error-row': (r) => {
    const res = only(r).results[0]!;
    expect(res.digest).toBe(digestOf(res.body));
    expect(
      res.body
        .split('\n')
        .filter(Boolean)
        .some((l) => (JSON.parse(l) as { item_id?: string }).item_id === undefined),
    ).toBe(true);
  },
  'one-shot-results': (r) => expect(only(r).results.map((x) => x.status)).toEqual([200, 410]),
  'out-of-order-webhooks': (r) => {
    expect(r.received.map((w) => w.type)).toEqual(['job.succeeded', 'job.progress', 'job.running']);
  },
  'dropped-webhooks': (r) => {
    expect(r.received).toEqual([]);
    const hooks = webhookEntries(r.provider.journal.all());
    expect(hooks.length).toBeGreaterThan(0);
    expect(hooks.every((e) => e.outcome === 'dropped')).toBe(true);
  },
  'sync-completion': (r) => {
    expect(creates(r)[0]).toMatchObject({ status: 200, job_state: 'succeeded' });
    expect(only(r).results[0]?.status).toBe(200);
  },
  'progress-lies': (r) => {
    expect(only(r).reads.some((j) => j.state === 'running' && j.progress.completed === j.progress.total)).toBe(true);
    expect(only(r).final?.state).toBe('succeeded');
  },
  'provider-restart': (r) => {
    // One journal across both provider processes: the job created before the restart finished after it.
    const transitions = r.provider.journal.all().filter((e) => e.type === 'transition');
    expect(transitions.map((e) => e.type === 'transition' && e.to)).toEqual(['queued', 'running', 'succeeded']);
    expect(only(r).final?.state).toBe('succeeded');
  },
  'create-in-flight': (r) => {
    // The first create is held 2.5 s before it executes: any create under its key meanwhile meets it in flight.
    expect(creates(r)[0]).toMatchObject({ effect: 'created', fault: { rule_id: 'hold-first-create', type: 'delay' } });
    expect(only(r).jobId).not.toBeNull();
  },
  'forged-webhook': (r) => {
    // Two deliveries the provider never made, claiming the job failed, beside its real events; the job succeeded.
    const forged = webhookEntries(r.provider.journal.all()).filter((e) => e.forged);
    expect(forged.map((e) => [e.event_type, e.forged])).toEqual([
      ['job.failed', 'unsigned'],
      ['job.failed', 'wrong_secret'],
    ]);
    expect(only(r).final?.state).toBe('succeeded');
  },
  'killed-before-deadline': (r) => expect(only(r).final?.state).toBe('running'),
};

describe('scenario catalog against the provider', () => {
  it('names an expectation for every catalog scenario', () => {
    expect(Object.keys(EXPECT).sort()).toEqual(catalog.map((s) => s.name).sort());
  });

  it.each(catalog.map((s) => [s.name, s] as const))('%s: loads, validates and its provider-side part runs', async (name, s) => {
    expect(getScenario(name)).toBe(s);
    expect(ScenarioSchema.safeParse(s).success).toBe(true);
    expect(FaultPlanSchema.safeParse(s.faults).success).toBe(true);
    expect(BehaviorConfigSchema.safeParse(s.behavior).success).toBe(true);

    const run = await runScenario(s);
    try {
      const journal = run.provider.journal.all();
      const reqs = requests(journal);
      // No 5xx but injected ones.
      const uninjected = reqs.filter((e) => e.status >= 500 && e.fault === null);
      expect(uninjected).toEqual([]);
      // Every fault in the journal comes from this scenario's plan, and a plan with rules did fire.
      const ruleIds = new Set(s.faults.rules.map((r, i) => r.id ?? `rule-${i + 1}`));
      const fired = journal.filter((e) => e.type !== 'transition' && e.fault).map((e) => (e as RequestEntry).fault!.rule_id);
      for (const id of fired) expect(ruleIds).toContain(id);
      if (s.faults.rules.length > 0) expect(fired.length).toBeGreaterThan(0);
      // At most one job per operation (counted at the provider), and each operation got one.
      for (const run_ of run.ops.values()) {
        const made = reqs.filter((e) => e.effect === 'created' && e.client_ref === run_.op);
        expect(made, `${name}: jobs of ${run_.op}`).toHaveLength(1);
        expect(run_.jobId).toBe(made[0]!.job_id);
      }
      EXPECT[name]!(run);
    } finally {
      run.provider.close();
    }
  });
});

describe('PUT /_control/scenario', () => {
  const lookup = (name: string) => catalog.find((s) => s.name === name);

  it('switches behaviour and fault plan to a catalog scenario; an unknown name is 404 scenario_not_found', async () => {
    const clock = new VirtualClock();
    const provider = createProvider({ clock, scenarioLookup: lookup });
    try {
      const put = (body: unknown) => provider.fetch('/_control/scenario', controlInit('PUT', body));
      const res = await put({ name: 'lost-create-response' });
      expect(res.status).toBe(200);
      const shown = (await res.json()) as { scenario: string; faults: { seed: number; rules: Array<{ id: string }> } };
      expect(shown.scenario).toBe('lost-create-response');
      expect(shown.faults.rules.map((r) => r.id)).toEqual(['lose-first-create']);
      const plan = (await (await provider.fetch('/_control/faults', controlInit('GET'))).json()) as { seed: number };
      expect(plan.seed).toBe(getScenario('lost-create-response').faults.seed);

      // The switched plan is in force: the first create's answer is lost.
      const lost = await outcome(
        provider.fetch('/v1/jobs', {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': 'sw-1' },
          body: '{"kind":"report","input":{}}',
        }),
      );
      expect(lost.ok).toBe(false);

      // Switch again: the behaviour follows (sync-completion answers 200 with a finished job), the old plan is gone.
      expect((await put({ name: 'sync-completion' })).status).toBe(200);
      expect(provider.control.behavior().default.mode).toBe('sync');
      const sync = await provider.fetch('/v1/jobs', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': 'sw-2' },
        body: '{"kind":"report","input":{}}',
      });
      expect(sync.status).toBe(200);
      expect(((await sync.json()) as Job).state).toBe('succeeded');

      const unknown = await put({ name: 'no-such-scenario' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { code: string }).code).toBe('scenario_not_found');
      // Nothing changed by the refused switch.
      expect(provider.control.behavior().default.mode).toBe('sync');

      const bad = await put({});
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { code: string }).code).toBe('invalid_request');
    } finally {
      provider.close();
    }
  });

  it.each(catalog.map((s) => s.name))('switches to %s', async (name) => {
    const provider = createProvider({ clock: new VirtualClock(), scenarioLookup: lookup });
    try {
      const res = await provider.fetch('/_control/scenario', controlInit('PUT', { name }));
      expect(res.status).toBe(200);
      const s = getScenario(name);
      const shown = (await (await provider.fetch('/_control/faults', controlInit('GET'))).json()) as { seed: number; rules: unknown[] };
      expect(shown.seed).toBe(s.faults.seed);
      expect(shown.rules).toHaveLength(s.faults.rules.length);
    } finally {
      provider.close();
    }
  });

  it('without a scenarioLookup the route does not exist', async () => {
    const provider = createProvider({ clock: new VirtualClock() });
    try {
      const res = await provider.fetch('/_control/scenario', controlInit('PUT', { name: 'lost-create-response' }));
      expect(res.status).toBe(404);
    } finally {
      provider.close();
    }
  });
});
