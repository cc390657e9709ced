import { describe, expect, it } from 'vitest';
import { scenarioCase, skippedCase } from '../../../src/conformance/pipeline/cases.js';
import { buildReport, schedulesCase } from '../../../src/conformance/report/build.js';
import { CertificationReportSchema } from '../../../src/conformance/report/schema.js';
import { certificationDoc, toJson } from '../../../src/conformance/report/write-reports.js';
import { toJUnit, toMarkdown } from '../../../src/lib/report-writers.js';
import { propertyRun } from '../../../src/conformance/property-run.js';
import { runScenarioInProcess } from '../../../src/conformance/runner/run-scenario.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { getScenario } from '../../../src/scenarios/index.js';

const head = {
  version: '0.0.0',
  client: 'test client',
  runner: 'in-process' as const,
  seed: 7,
  startedAt: '2026-12-01T00:00:00.000Z',
  wallMs: 1234,
  timeScale: { factor: 1.8, source: 'calibrated' as const, client_start_ms: 640, provider_round_trip_ms: 3 },
  webhooks: false,
};

describe('the certification report: one structure, one vocabulary, one pass rule', async () => {
  const run = await runScenarioInProcess(getScenario('corrupt-result'), createReferenceClient, { seed: 5 });
  const property = await propertyRun({ kind: 'in-process', factory: createReferenceClient }, { runs: 3, seed: 5 });
  const cases = [scenarioCase(run), skippedCase('duplicate-webhook', 'client does not listen for webhooks'), schedulesCase(property)];

  it('the JSON report matches its schema and says what was judged', () => {
    const report = CertificationReportSchema.parse(JSON.parse(toJson(buildReport(head, cases))));
    expect(report.passed).toBe(true);
    expect(report.counts).toEqual({ pass: 2, fail: 0, not_exercised: 0, skipped: 1, not_applicable: 0 });
    expect(report.cases.map((c) => [c.kind, c.verdict])).toEqual([
      ['scenario', 'pass'],
      ['scenario', 'skipped'],
      ['schedules', 'pass'],
    ]);
    expect(report.cases[1]!.reason).toBe('client does not listen for webhooks');
    expect(report.cases[2]!.schedules).toMatchObject({ runs: 3, seed: 5, counterexample: null });
    expect(report.invariants.find((i) => i.id === 'I11')).toMatchObject({ status: 'held', broken_in: [] });
    expect(report.time_scale.factor).toBe(1.8);
  });

  it('a failed case fails the certification in every format alike', () => {
    const failed = {
      ...scenarioCase(run),
      name: 'broken-one',
      verdict: 'fail' as const,
      reason: 'broken: I11',
      failures: ['I11 verified-results — op_1: took a corrupt body'],
    };
    const report = buildReport(head, [...cases, failed]);
    expect(report.passed).toBe(false);
    const doc = certificationDoc(report);
    const xml = toJUnit(doc);
    expect(xml).toContain('tests="4" failures="1" skipped="1"');
    expect(xml).toContain('<failure message="I11 verified-results — op_1: took a corrupt body" type="invariant">');
    expect(xml).toContain('<skipped message="skipped: client does not listen for webhooks"/>');
    const md = toMarkdown(doc);
    expect(md).toMatch(/^# jobproof certificate — FAILED/);
    expect(md).toContain('| time scale | 1.8× (calibrated; client start 640 ms; provider round trip 3 ms) |');
    expect(md).toContain('## Failures');
  });

  it('skipped and not_exercised alone do not certify', () => {
    expect(buildReport(head, [cases[1]!]).passed).toBe(false);
  });
});
