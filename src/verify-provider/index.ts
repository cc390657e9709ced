export { verifyProvider, runCheck, type VerifyReport } from './run.js';
export { CHECKS } from './checks/index.js';
export { registerVerifyProvider } from './cli.js';
export { toJUnit, toJson, toMarkdown, writeReports, parseReportSpec } from './report.js';
export type { Check, CheckContext, CheckResult, CheckStatus, VerifyOptions } from './types.js';
