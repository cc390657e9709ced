import { describe, expect, it } from 'vitest';
import { catalog, getScenario, listScenarios, probedInvariants, ScenarioSchema } from '../../src/scenarios/index.js';
import { INVARIANT_IDS } from '../../src/contract/index.js';

// The table of conformance.md, in order: the catalog must match it name for name.
const TABLE = [
  'lost-create-response',
  'crash-after-job-id',
  'cancel-race',
  'duplicate-webhook',
  'stale-lease',
  'create-hang',
  'rate-limited',
  'flapping-5xx',
  'error-after-commit',
  'changed-parameters',
  'foreign-job-id',
  'never-finishes',
  'cancel-unconfirmed',
  'cancel-after-end',
  'cancel-while-create-held',
  'partial-batch',
  'corrupt-result',
  'error-row',
  'one-shot-results',
  'out-of-order-webhooks',
  'dropped-webhooks',
  'sync-completion',
  'progress-lies',
  'provider-restart',
  'create-in-flight',
  'forged-webhook',
  'killed-before-deadline',
];

describe('scenario catalog', () => {
  it('holds the 27 scenarios of conformance.md in table order', () => {
    expect(catalog.map((s) => s.name)).toEqual(TABLE);
  });

  it.each(catalog.map((s) => [s.name, s] as const))('%s validates against ScenarioSchema', (_name, s) => {
    expect(ScenarioSchema.safeParse(s).success).toBe(true);
  });

  it('has unique names', () => {
    expect(new Set(catalog.map((s) => s.name)).size).toBe(catalog.length);
  });

  it('probes every invariant I1–I15 somewhere (I14, I15 on every run)', () => {
    const probed = new Set(catalog.flatMap(probedInvariants));
    expect([...INVARIANT_IDS].filter((id) => !probed.has(id))).toEqual([]);
  });

  it('names every invariant of the table except the universal I14 and I15', () => {
    const named = new Set(catalog.flatMap((s) => s.invariants));
    expect([...INVARIANT_IDS].filter((id) => !named.has(id))).toEqual(['I14', 'I15']);
  });

  it('marks exactly the first five as drills', () => {
    expect(catalog.map((s) => s.drill)).toEqual(TABLE.map((_, i) => i < 5));
  });

  it('keeps every scenario short enough for a < 60 s catalog run', () => {
    for (const s of catalog) {
      const longest = Math.max(...s.workload.map((o) => o.result_deadline_ms + o.at_ms));
      expect(longest, s.name).toBeLessThanOrEqual(10_000);
    }
  });

  it('getScenario finds by name and names the known ones on a miss', () => {
    expect(getScenario('cancel-race').invariants).toEqual(['I4', 'I5', 'I6']);
    expect(() => getScenario('nope')).toThrow(/known: lost-create-response/);
    expect(listScenarios()[0]).toEqual({
      name: 'lost-create-response',
      title: 'Lost create response',
      drill: true,
      invariants: ['I1', 'I2', 'I3'],
    });
  });
});

describe('catalog entries make their case happen', () => {
  it('lost-create-response loses the first create answer by reset', () => {
    expect(getScenario('lost-create-response').faults.rules).toEqual([
      { id: 'lose-first-create', on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } },
    ]);
  });

  it('cancel-race cancels after the commit point and before the job ends', () => {
    const s = getScenario('cancel-race');
    const b = s.behavior.default!;
    const cancel = s.actions.find((a) => a.type === 'cancel')!;
    expect(cancel.delay_ms).toBeGreaterThan(b.commit_point * b.duration_ms);
    expect(cancel.delay_ms).toBeLessThan(b.duration_ms);
  });

  it('foreign-job-id loses the first answer, answers the replay with a foreign id, and lists a foreign job on the first find', () => {
    const rules = getScenario('foreign-job-id').faults.rules;
    expect(rules.map((r) => [r.on, r.nth, r.fault.type])).toEqual([
      ['create', 1, 'lose_response'],
      ['create', 2, 'foreign_job_id'],
      ['list', 1, 'foreign_job_id'],
    ]);
  });

  it('flapping-5xx fails before commit on every request route', () => {
    const routes = new Set(getScenario('flapping-5xx').faults.rules.map((r) => r.on));
    expect([...routes].sort()).toEqual(['cancel', 'create', 'list', 'results', 'status']);
  });

  it('behaviour scenarios set the behaviour they are named for', () => {
    expect(getScenario('never-finishes').behavior.default?.outcome).toBe('never');
    expect(getScenario('cancel-unconfirmed').behavior.default?.cancel).toBe('ignore');
    expect(getScenario('partial-batch').behavior.default).toMatchObject({ items: 10, items_failed: 2 });
    expect(getScenario('corrupt-result').behavior.default?.corrupt_digest).toBe(true);
    expect(getScenario('error-row').behavior.default?.error_row).toBe(true);
    expect(getScenario('one-shot-results').behavior.default?.one_shot_results).toBe(true);
    expect(getScenario('sync-completion').behavior.default?.mode).toBe('sync');
    expect(getScenario('progress-lies').behavior.default?.progress_lies).toBe(true);
  });

  it('webhook scenarios turn webhooks on', () => {
    for (const name of ['duplicate-webhook', 'out-of-order-webhooks', 'dropped-webhooks', 'one-shot-results']) {
      expect(getScenario(name).webhooks, name).toBe(true);
    }
  });

  it('stale-lease pauses worker-1 past its lease and starts a second worker', () => {
    const s = getScenario('stale-lease');
    const pause = s.actions.find((a) => a.type === 'pause_worker');
    expect(pause && pause.type === 'pause_worker' && pause.resume_after_ms).toBeGreaterThan(s.lease_ms);
    expect(s.actions.some((a) => a.type === 'start_worker' && a.worker === 'worker-2')).toBe(true);
  });
});
