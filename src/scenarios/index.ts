export * from './actions.js';
export * from './schema.js';
export { catalog, getScenario, listScenarios, probedInvariants } from './catalog.js';
export * from './arbitraries.js';
export { scaleScenarioTime } from './time-scale.js';
export * from './tasks/scenarios.js';
