import { UNIVERSAL_INVARIANTS, type InvariantId } from '../contract/invariants.js';
import { parseScenario, type Scenario } from './schema.js';
import { drills } from './catalog/drills.js';
import { requestFaultScenarios } from './catalog/request-faults.js';
import { jobBehaviourScenarios } from './catalog/job-behaviours.js';
import { deliveryAndRestartScenarios } from './catalog/delivery-and-restart.js';
import { edgeCaseScenarios } from './catalog/edge-cases.js';

/**
 * The named catalog of conformance.md, in its table's order (the five drills first). Every entry is parsed at
 * load, so a typo in the data fails the import, not a run half an hour later.
 */
export const catalog: readonly Scenario[] = Object.freeze(
  [...drills, ...requestFaultScenarios, ...jobBehaviourScenarios, ...deliveryAndRestartScenarios, ...edgeCaseScenarios].map(parseScenario),
);

const byName = new Map(catalog.map((s) => [s.name, s]));

/** The scenario of that name; throws with the known names when there is none. */
export function getScenario(name: string): Scenario {
  const s = byName.get(name);
  if (!s) throw new Error(`unknown scenario '${name}'; known: ${[...byName.keys()].join(', ')}`);
  return s;
}

/** Name, title and probed invariants of every scenario, for `--list` style output. */
export function listScenarios(): { name: string; title: string; drill: boolean; invariants: Scenario['invariants'] }[] {
  return catalog.map(({ name, title, drill, invariants }) => ({ name, title, drill, invariants }));
}

/** What a run of this scenario probes: its own list (the table's) plus the invariants every run probes. */
export function probedInvariants(s: Scenario): InvariantId[] {
  return [...new Set([...s.invariants, ...UNIVERSAL_INVARIANTS])];
}
