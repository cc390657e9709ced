/** `jobproof/conformance`: the judge — run scenarios and random fault schedules against a client, check I1–I15. */
export { check, CHECKS, backoffPolls } from './checker/index.js';
export type { RunEvidence, RunEvidenceInput, CheckOptions, Verdict, InvariantResult, Failure, ProviderJob } from './checker/index.js';
export { RunEvidenceSchema, VerdictSchema } from './checker/index.js';
export { runScenarioInProcess, runScenarioProcess, type ScenarioRun } from './runner/run-scenario.js';
export { runCatalog, runOne, type ClientUnderTest, type CatalogRunOptions } from './catalog-run.js';
export { propertyRun, type PropertyRunOptions, type PropertyRunResult } from './property-run.js';
export {
  propertyRunLanes,
  prepareDrawn,
  type FactoryModule,
  type PropertyLanesOptions,
  type DrawnScheduleSpec,
} from './property-lanes.js';
export { certifyInProcess, expectCertified, inProcessPlan, type CertifyInProcessOptions, type InProcessCertification } from './testing.js';
export {
  certify,
  certified,
  forWebhooks,
  notApplicableIn,
  scenarioCase,
  skippedCase,
  taskCase,
  type CertificationPlan,
  type CertificationResult,
  type PlanClient,
  type Suite,
  type ScenarioDriver,
} from './pipeline/index.js';
export { certificationDoc, toJson, writeReports } from './report/write-reports.js';
export { buildReport, schedulesCase, failureLines } from './report/build.js';
export {
  CertificationReportSchema,
  ReportCaseSchema,
  REPORT_FORMAT,
  PASS_RULE,
  type CertificationReport,
  type ReportCase,
  type TimeScale,
} from './report/schema.js';
export { CASE_VERDICTS, CaseVerdictSchema, type CaseVerdict, type CaseOutcome } from './outcome.js';
export { calibrate, timeScaleFor, type Calibration } from './calibrate.js';
export { checkTasks, runTaskScenario, TASK_SCENARIOS, TASK_INVARIANTS, TASK_INVARIANT_IDS } from './tasks/index.js';
export type { TaskVerdict, TaskScenario, TaskScenarioRun, TaskClientFactory, TaskClientEnv } from './tasks/index.js';
export type { TaskClientUnderTest, TaskEvidence } from './tasks/evidence.js';
