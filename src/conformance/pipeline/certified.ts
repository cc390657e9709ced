import type { CaseVerdict } from '../outcome.js';

/**
 * The one pass rule of a certification (decision 011), for the CLI, the library and `report merge` alike: no case
 * failed and at least one passed. A certification where every case was not_exercised, skipped or not_applicable
 * tested nothing, so it does not certify.
 */
export function certified(cases: readonly { verdict: CaseVerdict }[]): boolean {
  return !cases.some((c) => c.verdict === 'fail') && cases.some((c) => c.verdict === 'pass');
}
