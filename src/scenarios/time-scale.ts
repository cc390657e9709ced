import type { Scenario } from './schema.js';

const scaleMs = (v: number, f: number) => Math.round(v * f);

/**
 * The same scenario, slower or faster: every duration, deadline, delay and action time multiplied by `factor`.
 * For clients whose processes start slowly (a JVM, an interpreter behind a shim, a loaded CI box), the process runner
 * can stretch time so that start-up does not eat the deadlines, without changing what the scenario means.
 */
export function scaleScenarioTime(s: Scenario, factor: number): Scenario {
  if (factor === 1) return s;
  const behaviors = (b: Scenario['behavior']['default']) =>
    b && {
      ...b,
      duration_ms: scaleMs(b.duration_ms, factor),
      cancel_ms: scaleMs(b.cancel_ms, factor),
      results_ttl_ms: b.results_ttl_ms === null ? null : scaleMs(b.results_ttl_ms, factor),
    };
  return {
    ...s,
    behavior: {
      ...s.behavior,
      default: behaviors(s.behavior.default),
      by_kind: s.behavior.by_kind && Object.fromEntries(Object.entries(s.behavior.by_kind).map(([k, b]) => [k, behaviors(b)!])),
    },
    faults: {
      ...s.faults,
      rules: s.faults.rules.map((r) => (r.fault.type === 'delay' ? { ...r, fault: { ...r.fault, ms: scaleMs(r.fault.ms, factor) } } : r)),
    },
    workload: s.workload.map((o) => ({
      ...o,
      at_ms: scaleMs(o.at_ms, factor),
      create_deadline_ms: scaleMs(o.create_deadline_ms, factor),
      result_deadline_ms: scaleMs(o.result_deadline_ms, factor),
    })),
    actions: s.actions.map((a) => {
      const t = { ...a, at_ms: a.at_ms === undefined ? undefined : scaleMs(a.at_ms, factor), delay_ms: scaleMs(a.delay_ms, factor) };
      if (t.type === 'cancel') return { ...t, cancel_deadline_ms: scaleMs(t.cancel_deadline_ms, factor) };
      if (t.type === 'pause_worker') {
        const by = t.resume_by_ms === undefined ? {} : { resume_by_ms: scaleMs(t.resume_by_ms, factor) };
        return { ...t, resume_after_ms: scaleMs(t.resume_after_ms, factor), ...by };
      }
      if (t.type === 'restart_provider') return { ...t, down_ms: scaleMs(t.down_ms, factor) };
      return t;
    }),
    lease_ms: scaleMs(s.lease_ms, factor),
    quiet_timeout_ms: scaleMs(s.quiet_timeout_ms, factor),
  };
}
