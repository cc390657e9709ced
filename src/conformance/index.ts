/** `jobproof/conformance`: the judge — run scenarios and random fault schedules against a client, check I1–I15. */
export { check, CHECKS, backoffPolls } from './checker/index.js';
export type { RunEvidence, RunEvidenceInput, CheckOptions, Verdict, InvariantResult, Failure, ProviderJob } from './checker/index.js';
export { RunEvidenceSchema, VerdictSchema } from './checker/index.js';
export { runScenarioInProcess, runScenarioProcess, type ScenarioRun } from './runner/run-scenario.js';
export { runCatalog, runOne, type ClientUnderTest, type CatalogRunOptions } from './catalog-run.js';
export { propertyRun, type PropertyRunOptions, type PropertyRunResult } from './property-run.js';
export { certifyInProcess, expectCertified, type CertifyInProcessOptions, type InProcessCertification } from './testing.js';
export { toJUnit } from './report/junit.js';
export { toMarkdown } from './report/markdown.js';
export { toJson, writeReports } from './report/write-reports.js';
export type { Certification } from './report/summary.js';
export { checkTasks, runTaskScenario, TASK_SCENARIOS, TASK_INVARIANTS, TASK_INVARIANT_IDS } from './tasks/index.js';
export type { TaskVerdict, TaskScenario, TaskScenarioRun, TaskClientFactory, TaskClientEnv } from './tasks/index.js';
export type { TaskClientUnderTest, TaskEvidence } from './tasks/evidence.js';
