/** jobproof's public API: the fake provider, the scenarios, the reference client and the judge. */
export * from './fake-provider/index.js';
export { RealClock, VirtualClock, realClock, settle, type Clock } from './lib/clock.js';
export { canonicalJson, fingerprint } from './lib/canonical-json.js';
export * from './lib/client-protocol.js';
export { catalog, getScenario, listScenarios, parseScenario, scheduleArb, workloadArb, faultPlanArb, harnessScheduleArb, type Scenario } from './scenarios/index.js';
export { check, type Verdict, type RunEvidence } from './conformance/checker/index.js';
export { runScenarioInProcess, runScenarioProcess, type ScenarioRun } from './conformance/runner/run-scenario.js';
export { propertyRun } from './conformance/property-run.js';
export { CASE_VERDICTS, CaseVerdictSchema, certificationPassed, type CaseVerdict } from './conformance/outcome.js';
export { CertificationReportSchema, ReportCaseSchema, REPORT_FORMAT, PASS_RULE, type CertificationReport, type ReportCase } from './conformance/report/schema.js';
export { calibrate, timeScaleFor } from './conformance/calibrate.js';
export { certifyInProcess, expectCertified, type CertifyInProcessOptions } from './conformance/testing.js';
export { createReferenceClient, verifyAudit } from './reference-client/index.js';
export { checkTasks, runTaskScenario, TASK_SCENARIOS, TASK_INVARIANTS } from './conformance/tasks/index.js';
export { createTaskClient } from './reference-client/tasks/index.js';
export { verifyProvider } from './verify-provider/index.js';
