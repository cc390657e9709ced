import { scenarioCase } from '../../../src/conformance/pipeline/cases.js';
import { buildReport } from '../../../src/conformance/report/build.js';
import type { HtmlEvidence } from '../../../src/conformance/report/html/report-html.js';
import type { CertificationReport } from '../../../src/conformance/report/schema.js';
import { runScenarioInProcess } from '../../../src/conformance/runner/run-scenario.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { getScenario } from '../../../src/scenarios/index.js';
import { mutants } from '../mutants/mutants.js';

/**
 * A certification of a deliberately broken client (a fresh Idempotency-Key on every create attempt) on the lost
 * create answer, next to a passing run of the correct client: the material of the HTML report's tests.
 */
export async function brokenClientCertification(): Promise<{ report: CertificationReport; evidence: HtmlEvidence }> {
  const m = mutants.find((x) => x.name === 'new-key-on-retry')!;
  const failing = await runScenarioInProcess(getScenario(m.scenario), m.factory, { seed: 11 });
  const passing = await runScenarioInProcess(getScenario('duplicate-webhook'), createReferenceClient, { seed: 11 });
  const report = buildReport(
    {
      version: '0.1.0-test',
      client: 'mutant new-key-on-retry',
      runner: 'in-process',
      seed: 11,
      startedAt: new Date(0).toISOString(),
      wallMs: 1234,
      timeScale: { factor: 1, source: 'virtual', client_start_ms: null, provider_round_trip_ms: null },
      webhooks: true,
    },
    [scenarioCase(passing), scenarioCase(failing)],
  );
  return { report, evidence: { runs: new Map([passing, failing].map((r) => [r.scenario, r] as const)), clientArgs: '--in-process' } };
}
