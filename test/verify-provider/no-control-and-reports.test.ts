import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportSpec, toJUnit, toMarkdown, verifyProvider, writeReports, type VerifyReport } from '../../src/verify-provider/index.js';
import { serveProvider, type Served } from './helpers.js';

let s: Served;
let report: VerifyReport;
beforeAll(async () => {
  // No control API (it answers 404); short jobs so the job checks can finish on their own.
  s = await serveProvider(undefined, { control: false, behavior: { default: { duration_ms: 150 } } });
  report = await verifyProvider({
    ...s.opts,
    only: ['create.shape', 'create.in-flight-409', 'job.final-state-stable', 'task.create', 'task.apply-retry', 'task.review-by-submitter'],
  });
}, 30_000);
afterAll(async () => s.stop());

describe('verify-provider without a control API', () => {
  it('checks needing the control API are not_run (404), the others run; nothing failed → passed', () => {
    const by = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(report.control).toBe(false);
    expect(report.control_note).toMatch(/404/);
    expect(by['create.shape']!.status).toBe('passed');
    expect(by['job.final-state-stable']!.status).toBe('passed');
    for (const n of ['create.in-flight-409', 'task.create', 'task.apply-retry', 'task.review-by-submitter'])
      expect(by[n]!.status, n).toBe('not_run');
    expect(report.passed).toBe(true);
  });

  it('writes junit, json and md reports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jpv-'));
    const targets = parseReportSpec(`junit=${dir}/r.xml,json=${dir}/r.json,md=${dir}/r.md`);
    writeReports(report, targets);
    const xml = readFileSync(`${dir}/r.xml`, 'utf8');
    expect(xml).toContain('<testsuites name="jobproof verify-provider" tests="6" failures="0" skipped="4"');
    expect(xml).toContain('<skipped message="needs the control API');
    expect(JSON.parse(readFileSync(`${dir}/r.json`, 'utf8'))).toMatchObject({ passed: true, counts: { passed: 2, failed: 0, not_run: 4 } });
    expect(readFileSync(`${dir}/r.md`, 'utf8')).toMatch(/^# jobproof verify-provider — PASSED/);
    expect(() => parseReportSpec('html=x')).toThrow(/--report/);
  });

  it('a failed check shows as <failure> and in the md Failures section', () => {
    const failed: VerifyReport = {
      ...report,
      passed: false,
      counts: { passed: 0, failed: 1, not_run: 0 },
      checks: [{ name: 'x.y', status: 'failed', evidence: ['a <b> & c'], explanation: 'broke "here"' }],
    };
    expect(toJUnit(failed)).toContain('<failure message="broke &quot;here&quot;" type="check">');
    expect(toMarkdown(failed)).toContain('## Failures');
  });
});
