import { runScenarioInProcess } from '../../../src/conformance/runner/run-scenario.js';
import type { Certification } from '../../../src/conformance/report/summary.js';
import { getScenario } from '../../../src/scenarios/index.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { mutants } from '../mutants/mutants.js';

/**
 * A certification of a deliberately broken client (a fresh Idempotency-Key on every create attempt) on the lost
 * create answer, next to a passing run of the correct client: the material of the HTML report's tests.
 */
export async function brokenClientCertification(): Promise<Certification> {
  const m = mutants.find((x) => x.name === 'new-key-on-retry')!;
  const failing = await runScenarioInProcess(getScenario(m.scenario), m.factory, { seed: 11 });
  const passing = await runScenarioInProcess(getScenario('duplicate-webhook'), createReferenceClient, { seed: 11 });
  return {
    version: '0.1.0-test',
    client: 'mutant new-key-on-retry',
    runner: 'in-process',
    seed: 11,
    startedAt: new Date(0).toISOString(),
    wallMs: 1234,
    scenarios: [passing, failing],
    clientArgs: '--in-process',
    timeScale: 1,
  };
}
