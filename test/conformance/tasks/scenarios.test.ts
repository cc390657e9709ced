import { describe, expect, it } from 'vitest';
import {
  checkTasks,
  runTaskScenario,
  TASK_INVARIANT_IDS,
  TASK_SCENARIOS,
  TaskScenarioSchema,
  taskScenario,
} from '../../../src/conformance/tasks/index.js';
import { BROKEN, referenceFactory } from './helpers.js';

describe('task scenarios: the reference task client', () => {
  it('has the five named scenarios (plus redraft-after-approval), all valid', () => {
    const names = TASK_SCENARIOS.map((s) => s.name);
    for (const n of [
      'apply-lost-answer',
      'no-approval-yet',
      'redraft-mid-review',
      'revoked-approval',
      'self-approval-refused',
      'redraft-after-approval',
    ])
      expect(names).toContain(n);
    expect(() => TaskScenarioSchema.parse({ ...TASK_SCENARIOS[0], name: 'Bad Name' })).toThrow();
  });

  for (const s of TASK_SCENARIOS) {
    it(`${s.name}: every invariant holds and the scenario's expectations are met`, async () => {
      const run = await runTaskScenario(s, referenceFactory());
      expect(run.finished).toBe(true);
      expect(run.problems).toEqual([]);
      expect(run.verdict.failed, JSON.stringify(run.verdict.results, null, 1)).toEqual([]);
      for (const id of ['T1', 'T2', 'T4', 'T5'] as const) expect(run.verdict.results[id].status).toBe('held');
      if (s.name.startsWith('redraft')) expect(run.verdict.results.T3.status).toBe('held');
    });
  }

  it('apply-lost-answer: two applies with one key, the second replayed; the object changed once; the key is reported', async () => {
    const run = await runTaskScenario(taskScenario('apply-lost-answer'), referenceFactory());
    const applies = run.evidence.journal.filter((e) => e.route === 'apply');
    expect(applies.map((e) => [e.effect, e.delivery])).toEqual([
      ['applied', 'lost'],
      ['replayed', 'delivered'],
    ]);
    const [r] = run.reports;
    expect(new Set(applies.map((e) => e.idempotency_key))).toEqual(new Set([r!.apply_key]));
    expect(r!.application?.idempotency_key).toBe(r!.apply_key);
    const create = run.evidence.journal.find((e) => e.route === 'task_create')!;
    expect(create.idempotency_key).not.toBe(r!.apply_key);
    expect(run.evidence.provider.objects[0]!.version).toBe(2);
  });

  it('no-approval-yet: no apply request before the approval', async () => {
    const run = await runTaskScenario(taskScenario('no-approval-yet'), referenceFactory());
    const approval = run.evidence.journal.find((e) => e.route === 'review')!;
    const applies = run.evidence.journal.filter((e) => e.route === 'apply');
    expect(applies.length).toBe(1);
    expect(applies[0]!.seq).toBeGreaterThan(approval.seq);
    // It polled while waiting (bounded: about once a second for 45 s).
    const reads = run.evidence.journal.filter((e) => e.route === 'task_read').length;
    expect(reads).toBeGreaterThan(20);
    expect(reads).toBeLessThan(80);
  });

  it('redraft-after-approval: stale_object_version sends the client back to waiting; it applies proposal 2 under the second approval', async () => {
    const run = await runTaskScenario(taskScenario('redraft-after-approval'), referenceFactory());
    const applies = run.evidence.journal.filter((e) => e.route === 'apply');
    expect(applies.map((e) => e.code ?? e.effect)).toEqual(['stale_object_version', 'applied']);
    expect(new Set(applies.map((e) => e.idempotency_key)).size).toBe(1);
    const history = run.evidence.client.ops[0]!.history;
    expect(history.some((h) => h.cause.includes('redraft seen'))).toBe(true);
  });
});

describe('broken task clients are caught with the right invariant', () => {
  for (const [name, b] of Object.entries(BROKEN)) {
    it(`${name} → ${b.invariant} (${b.scenario})`, async () => {
      const run = await runTaskScenario(taskScenario(b.scenario), referenceFactory({ policy: b.policy() }));
      expect(run.verdict.ok).toBe(false);
      expect(run.verdict.failed).toContain(b.invariant);
      expect(run.verdict.results[b.invariant].violations.length).toBeGreaterThan(0);
      // The reference client on the same scenario is not flagged.
      const ref = await runTaskScenario(taskScenario(b.scenario), referenceFactory());
      expect(ref.verdict.failed).toEqual([]);
    });
  }
});

describe('checkTasks is a pure function of its evidence', () => {
  it('empty evidence: nothing judged, nothing failed', () => {
    const v = checkTasks({
      journal: [],
      client: { tenant: 'acme', subject: 'agent-1', ops: [] },
      provider: { tasks: [], objects: [] },
      harness: [],
    });
    expect(v.ok).toBe(true);
    for (const id of TASK_INVARIANT_IDS) expect(v.results[id].status).toBe('not_applicable');
  });

  it('same evidence, same verdict; a second applied effect on one task breaks T1', async () => {
    const run = await runTaskScenario(taskScenario('apply-lost-answer'), referenceFactory());
    expect(checkTasks(run.evidence)).toEqual(run.verdict);
    const applied = run.evidence.journal.find((e) => e.effect === 'applied')!;
    const forged = { ...run.evidence, journal: [...run.evidence.journal, { ...applied, seq: 10_000 }] };
    expect(checkTasks(forged).failed).toContain('T1');
  });

  it('an applied task whose approval came from another tenant or the initiator breaks T4', async () => {
    const run = await runTaskScenario(taskScenario('apply-lost-answer'), referenceFactory());
    const journal = run.evidence.journal.map((e) => (e.route === 'review' ? { ...e, tenant: 'globex', subject: 'reviewer-9' } : e));
    expect(checkTasks({ ...run.evidence, journal }).failed).toContain('T4');
    const tasks = run.evidence.provider.tasks.map((t) => ({ ...t, review: t.review && { ...t.review, reviewer: t.initiator } }));
    expect(checkTasks({ ...run.evidence, provider: { ...run.evidence.provider, tasks } }).failed).toContain('T4');
  });
});

describe('apply-crash-restart (in process: the worker abandoned mid-apply, a new client on the same state)', () => {
  it('the reference client replays its recorded apply key: in progress, then the replayed application', async () => {
    const run = await runTaskScenario(taskScenario('apply-crash-restart'), referenceFactory());
    expect(run.problems).toEqual([]);
    const applies = run.evidence.journal.filter((e) => e.route === 'apply');
    expect(new Set(applies.map((e) => e.idempotency_key)).size).toBe(1);
    expect(applies.map((e) => e.effect)).toContain('replayed');
    expect(run.evidence.provider.objects[0]!.version).toBe(2);
  });

  it('a client that makes a new apply key on every attempt is caught (T5)', async () => {
    const run = await runTaskScenario(
      taskScenario('apply-crash-restart'),
      referenceFactory({ policy: BROKEN['new-apply-key-per-retry']!.policy() }),
    );
    expect(run.verdict.failed).toContain('T5');
  });
});
