import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS, verifyProvider, type VerifyReport } from '../../src/verify-provider/index.js';
import { serveProvider, type Served } from './helpers.js';

let s: Served;
beforeAll(async () => {
  s = await serveProvider();
});
afterAll(async () => s.stop());

describe('the fake provider passes its own verify-provider over real HTTP', () => {
  let report: VerifyReport;
  it('runs every check; all pass', async () => {
    report = await verifyProvider(s.opts);
    const bad = report.checks
      .filter((c) => c.status !== 'passed')
      .map((c) => `${c.name}: ${c.status}: ${c.explanation}\n  ${c.evidence.join('\n  ')}`);
    expect(bad).toEqual([]);
    expect(report.checks.map((c) => c.name)).toEqual(CHECKS.map((c) => c.name));
    expect(report.passed).toBe(true);
  }, 60_000);
});
