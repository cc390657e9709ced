export * from './actions.js';
export * from './schema.js';
export { catalog, getScenario, listScenarios, probedInvariants } from './catalog.js';
export * from './arbitraries.js';
export { INVARIANT_IDS, InvariantIdSchema, INVARIANTS, UNIVERSAL_INVARIANTS, type InvariantId } from '../conformance/invariants.js';
export { scaleScenarioTime } from './time-scale.js';
