/** The certification pipeline: a plan in, a report out, one pass rule; suites (jobs, tasks) plug in. */
export { certify, suitesOf, type CertificationResult } from './certify.js';
export { certified } from './certified.js';
export { forWebhooks, NO_WEBHOOKS, notApplicableIn, scenarioCase, skippedCase } from './cases.js';
export { taskCase } from './task-case.js';
export type { CertificationPlan, JobsSuitePlan, PlanClient, TasksSuitePlan } from './plan.js';
export type { ScenarioDriver, Suite, SuiteContext, SuiteResult } from './suite.js';
export { head, progressLine, timeScaleLine } from './lines.js';
