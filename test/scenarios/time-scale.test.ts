import { describe, expect, it } from 'vitest';
import { catalog, parseScenario, scaleScenarioTime } from '../../src/scenarios/index.js';

describe('scaleScenarioTime', () => {
  it('stretches every time of every catalog scenario and the result is still a valid scenario', () => {
    for (const s of catalog) {
      const x = scaleScenarioTime(s, 3);
      expect(() => parseScenario(x)).not.toThrow();
      expect(x.lease_ms).toBe(s.lease_ms * 3);
      x.workload.forEach((o, i) => {
        expect(o.create_deadline_ms).toBe(s.workload[i]!.create_deadline_ms * 3);
        expect(o.result_deadline_ms).toBe(s.workload[i]!.result_deadline_ms * 3);
      });
      x.actions.forEach((a, i) => {
        const orig = s.actions[i]!;
        expect(a.type).toBe(orig.type);
        expect(a.delay_ms).toBe(orig.delay_ms * 3);
        if (a.type === 'pause_worker' && orig.type === 'pause_worker') {
          expect(a.resume_after_ms).toBe(orig.resume_after_ms * 3);
          if (orig.resume_by_ms !== undefined) expect(a.resume_by_ms).toBe(orig.resume_by_ms * 3);
        }
        if (a.type === 'cancel' && orig.type === 'cancel') expect(a.cancel_deadline_ms).toBe(orig.cancel_deadline_ms * 3);
      });
      const d = x.behavior.default ?? x.behavior.by_kind?.report;
      const o = s.behavior.default ?? s.behavior.by_kind?.report;
      if (d && o) expect(d.duration_ms).toBe(o.duration_ms * 3);
    }
  });

  it('keeps a pause longer than the lease when both are scaled', () => {
    const stale = catalog.find((s) => s.name === 'stale-lease')!;
    const x = scaleScenarioTime(stale, 2.5);
    const pause = x.actions.find((a) => a.type === 'pause_worker');
    expect(pause && pause.type === 'pause_worker' && pause.resume_after_ms > x.lease_ms).toBe(true);
  });

  it('is the identity at factor 1', () => {
    expect(scaleScenarioTime(catalog[0]!, 1)).toBe(catalog[0]);
  });
});
