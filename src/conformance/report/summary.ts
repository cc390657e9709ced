import type { CertificationReport } from './schema.js';

export { failureLines } from './build.js';

/** A scenario run is held against the client only when its case failed (not_exercised and skipped are not). */
export function runPassed(r: { outcome: { verdict: string } }): boolean {
  return r.outcome.verdict !== 'fail';
}

export function passed(r: CertificationReport): boolean {
  return r.passed;
}
