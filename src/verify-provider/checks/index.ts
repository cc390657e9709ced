import type { Check } from '../types.js';
import { applyLostAnswer, applyRetry, applyWithoutApproval } from './apply.js';
import { createChangedBody, createInFlight, createMissingKey, createReplay, createShape, keyScopedPerSubject } from './create.js';
import { cancelAfterEnd, cancelRepeat, finalStateStable, resultsDigest, tenantsIsolated } from './jobs.js';
import { garbageNo5xx, problemsRfc9457 } from './problems.js';
import { reviewByInitiator, reviewBySubmitter, reviewForeignTenant, reviewStaleProposal } from './reviews.js';
import { taskCreate, taskCreateReplay, taskKeyConflict, taskLostCreate, taskStaleVersion, taskTenantIsolated } from './tasks.js';

/** Every check, in the order they run. Names are stable: reports and tests refer to them. */
export const CHECKS: readonly Check[] = [
  createShape,
  createReplay,
  createChangedBody,
  createMissingKey,
  createInFlight,
  keyScopedPerSubject,
  tenantsIsolated,
  finalStateStable,
  cancelRepeat,
  cancelAfterEnd,
  resultsDigest,
  problemsRfc9457,
  garbageNo5xx,
  taskCreate,
  taskCreateReplay,
  taskKeyConflict,
  taskLostCreate,
  taskStaleVersion,
  taskTenantIsolated,
  reviewForeignTenant,
  reviewBySubmitter,
  reviewByInitiator,
  reviewStaleProposal,
  applyWithoutApproval,
  applyRetry,
  applyLostAnswer,
];
