export { check, checkParsed, CHECKS } from './check.js';
export {
  RunEvidenceSchema,
  parseLiveEvidence,
  CheckOptionsSchema,
  SubmissionSchema,
  CancelIntentSchema,
  HarnessEventSchema,
  ProviderJobSchema,
  type RunEvidence,
  type RunEvidenceInput,
  type LiveEvidenceInput,
  type CheckOptions,
  type Submission,
  type CancelIntent,
  type HarnessEvent,
  type ProviderJob,
} from './evidence.js';
export { VerdictSchema, InvariantResultSchema, FailureSchema, type Verdict, type InvariantResult, type Failure } from './verdict.js';
export { backoffPolls } from './invariants/i08-bounded-polling.js';
