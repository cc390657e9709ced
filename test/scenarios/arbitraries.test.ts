import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FaultPlanSchema } from '../../src/contract/faults.js';
import { BehaviorConfigSchema } from '../../src/contract/behavior.js';
import { faultPlanArb, harnessScheduleArb, scheduleArb, ScenarioSchema, workloadArb } from '../../src/scenarios/index.js';

function issues(r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  return r.success ? '' : r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
}

describe('arbitraries only produce valid data', () => {
  it('scheduleArb → ScenarioSchema-valid scenarios', () => {
    fc.assert(
      fc.property(scheduleArb, (s) => {
        expect(issues(ScenarioSchema.safeParse(s))).toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('faultPlanArb → FaultPlanSchema-valid plans', () => {
    fc.assert(
      fc.property(faultPlanArb, (p) => {
        expect(issues(FaultPlanSchema.safeParse(p))).toBe('');
      }),
      { numRuns: 300 },
    );
  });

  it('workloadArb → 1–5 operations with distinct ids and requests, valid behaviours, cancels on known operations', () => {
    fc.assert(
      fc.property(workloadArb, (w) => {
        expect(w.workload.length).toBeGreaterThanOrEqual(1);
        expect(w.workload.length).toBeLessThanOrEqual(5);
        expect(new Set(w.workload.map((o) => o.operation_id)).size).toBe(w.workload.length);
        expect(new Set(w.workload.map((o) => JSON.stringify(o.input))).size).toBe(w.workload.length);
        expect(issues(BehaviorConfigSchema.safeParse(w.behavior))).toBe('');
        const ids = new Set(w.workload.map((o) => o.operation_id));
        for (const a of w.actions) expect(a.type === 'cancel' && ids.has(a.operation)).toBe(true);
      }),
    );
  });

  it('harnessScheduleArb pauses past the lease', () => {
    fc.assert(
      fc.property(harnessScheduleArb, (h) => {
        for (const a of h.actions) if (a.type === 'pause_worker') expect(a.resume_after_ms).toBeGreaterThan(h.lease_ms);
      }),
    );
  });

  it('covers webhook faults and every request route over enough samples', () => {
    const routes = new Set<string>();
    fc.assert(
      fc.property(faultPlanArb, (p) => {
        for (const r of p.rules ?? []) routes.add(String(r.on));
      }),
      { numRuns: 500 },
    );
    expect([...routes].sort()).toEqual(['cancel', 'create', 'list', 'results', 'status', 'webhook']);
  });
});
