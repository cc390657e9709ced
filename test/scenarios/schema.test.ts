import { describe, expect, it } from 'vitest';
import { FaultPlanSchema } from '../../src/contract/faults.js';
import { parseScenario, ScenarioSchema, getScenario } from '../../src/scenarios/index.js';

function issuePaths(
  input: unknown,
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } },
) {
  const r = schema.safeParse(input);
  expect(r.success).toBe(false);
  return r.error!.issues.map((i) => i.path.join('.'));
}

describe('FaultPlanSchema refuses bad plans, naming the field', () => {
  it('unknown fault type', () => {
    expect(issuePaths({ rules: [{ on: 'create', fault: { type: 'explode' } }] }, FaultPlanSchema)).toContain('rules.0.fault.type');
  });
  it('nth below 1', () => {
    expect(issuePaths({ rules: [{ on: 'create', nth: 0, fault: 'drop' }] }, FaultPlanSchema)).toContain('rules.0.nth');
  });
  it('probability above 1', () => {
    expect(issuePaths({ rules: [{ on: 'status', probability: 1.5, fault: { type: 'rate_limit' } }] }, FaultPlanSchema)).toContain(
      'rules.0.probability',
    );
  });
  it('a webhook fault on a request route', () => {
    expect(issuePaths({ rules: [{ on: 'status', fault: 'drop' }] }, FaultPlanSchema)).toContain('rules.0.fault.type');
  });
});

describe('ScenarioSchema cross-checks', () => {
  const base = {
    name: 'x',
    title: 'x',
    what_happens: 'x',
    invariants: ['I1'],
    workload: [{ operation_id: 'op_1', kind: 'report', input: {}, create_deadline_ms: 1000, result_deadline_ms: 2000 }],
  };

  it('accepts a minimal scenario and fills defaults', () => {
    const s = ScenarioSchema.parse(base);
    expect(s).toMatchObject({ actions: [], webhooks: false, workers: 1, lease_ms: 1000, drill: false, faults: { seed: 0, rules: [] } });
  });

  it('wants exactly one trigger per action', () => {
    const both = { ...base, actions: [{ type: 'restart_provider', at_ms: 1, after: { event: 'create_sent', operation: 'op_1' } }] };
    const none = { ...base, actions: [{ type: 'restart_provider' }] };
    expect(issuePaths(both, ScenarioSchema)).toContain('actions.0');
    expect(issuePaths(none, ScenarioSchema)).toContain('actions.0');
  });

  it('refuses references to unknown operations, workers and actions', () => {
    const bad = {
      ...base,
      actions: [
        { type: 'cancel', operation: 'op_9', at_ms: 0, cancel_deadline_ms: 100 },
        { type: 'kill_worker', worker: 'worker-7', at_ms: 0 },
        { type: 'start_worker', worker: 'worker-2', after: { event: 'action_done', action: 'ghost' } },
      ],
    };
    expect(issuePaths(bad, ScenarioSchema)).toEqual(['actions.0.operation', 'actions.1.worker', 'actions.2.after.action']);
  });

  it('refuses a pause shorter than the lease', () => {
    const bad = { ...base, lease_ms: 1000, actions: [{ type: 'pause_worker', worker: 'worker-1', at_ms: 0, resume_after_ms: 900 }] };
    expect(issuePaths(bad, ScenarioSchema)).toEqual(['actions.0.resume_after_ms']);
  });

  it('refuses a pause until an event without a bound, a bound before the minimum, and a worker never started', () => {
    const pause = { type: 'pause_worker', worker: 'worker-1', at_ms: 0, resume_after_ms: 1200 };
    const acted = { event: 'worker_acted', worker: 'worker-2', operation: 'op_1' };
    const bad = {
      ...base,
      lease_ms: 500,
      actions: [
        { ...pause, resume_after: acted },
        { ...pause, resume_after: acted, resume_by_ms: 1000 },
        { ...pause, resume_after: { ...acted, worker: 'worker-9' }, resume_by_ms: 6000 },
        { type: 'start_worker', worker: 'worker-2', at_ms: 0 },
      ],
    };
    expect(issuePaths(bad, ScenarioSchema)).toEqual(['actions.0.resume_by_ms', 'actions.1.resume_by_ms', 'actions.2.resume_after.worker']);
    const ok = { ...bad, actions: [{ ...pause, resume_after: acted, resume_by_ms: 6000 }, bad.actions[3]] };
    expect(ScenarioSchema.safeParse(ok).success).toBe(true);
  });

  it('refuses a submit_changed that changes nothing, and knows the new operation afterwards', () => {
    const same = { ...base, actions: [{ type: 'submit_changed', operation: 'op_1', at_ms: 0, input: {}, new_operation_id: 'op_2' }] };
    expect(issuePaths(same, ScenarioSchema)).toEqual(['actions.0.input']);
    const ok = {
      ...base,
      actions: [
        { type: 'submit_changed', operation: 'op_1', at_ms: 0, input: { a: 1 }, new_operation_id: 'op_2' },
        { type: 'cancel', operation: 'op_2', after: { event: 'create_sent', operation: 'op_2' }, cancel_deadline_ms: 100 },
      ],
    };
    expect(ScenarioSchema.safeParse(ok).success).toBe(true);
  });

  it('parseScenario names the scenario and the path in its error', () => {
    expect(() => parseScenario({ ...base, name: 'bad-one', workload: [] })).toThrow(
      /scenario bad-one is invalid:\n {2}✖ .*\n {4}→ at workload/,
    );
  });

  it('a catalog scenario survives a JSON round trip (scenario files)', () => {
    const s = getScenario('stale-lease');
    expect(ScenarioSchema.parse(JSON.parse(JSON.stringify(s)))).toEqual(s);
  });
});
