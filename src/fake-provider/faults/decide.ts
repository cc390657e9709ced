import type { Fault, FaultPlan, FaultRoute, FaultRule } from '../../contract/faults.js';

/**
 * Fault decisions as a pure function of (plan, route, n-th request on that route, hits so far): the same seed and
 * the same request sequence always give the same decisions, which is what makes a failing schedule replayable.
 */
export interface FaultState {
  /** Requests seen per route since the plan was installed. */
  counts: Partial<Record<FaultRoute, number>>;
  /** Times each rule (by index) has fired. */
  hits: number[];
}

export interface FiredRule {
  rule_id: string;
  index: number;
  fault: Fault;
}

export function emptyFaultState(plan: FaultPlan): FaultState {
  return { counts: {}, hits: plan.rules.map(() => 0) };
}

export function ruleId(rule: FaultRule, index: number): string {
  return rule.id ?? `rule-${index + 1}`;
}

/** splitmix32 over (seed, rule, n): a uniform number in [0, 1) that depends on nothing else. */
export function uniform(seed: number, ruleIndex: number, n: number): number {
  let h = (seed ^ Math.imul(ruleIndex + 1, 0x9e3779b9) ^ Math.imul(n, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x21f0aaad);
  h = Math.imul(h ^ (h >>> 15), 0x735a2d97);
  h = (h ^ (h >>> 15)) >>> 0;
  return h / 4294967296;
}

function nthMatches(nth: FaultRule['nth'], n: number): boolean {
  if (nth === undefined) return true;
  return Array.isArray(nth) ? nth.includes(n) : nth === n;
}

/** Count one request on `route` and return the rule that fires for it, if any. Mutates `state` only. */
export function decide(plan: FaultPlan, state: FaultState, route: FaultRoute): FiredRule | null {
  const n = (state.counts[route] ?? 0) + 1;
  state.counts[route] = n;
  for (let i = 0; i < plan.rules.length; i++) {
    const rule = plan.rules[i]!;
    if (rule.on !== route) continue;
    if (rule.times !== undefined && (state.hits[i] ?? 0) >= rule.times) continue;
    if (!nthMatches(rule.nth, n)) continue;
    if (rule.probability !== undefined && uniform(plan.seed, i, n) >= rule.probability) continue;
    state.hits[i] = (state.hits[i] ?? 0) + 1;
    return { rule_id: ruleId(rule, i), index: i, fault: rule.fault };
  }
  return null;
}
