import { describe, expect, it } from 'vitest';
import { runScenarioInProcess } from '../../../src/conformance/runner/run-scenario.js';
import { propertyRun } from '../../../src/conformance/property-run.js';
import { certifyInProcess } from '../../../src/conformance/testing.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { catalog } from '../../../src/scenarios/index.js';

const LONG = !!process.env.JOBPROOF_LONG;

function brokenOf(run: Awaited<ReturnType<typeof runScenarioInProcess>>): string[] {
  return run.verdict.invariants.filter((i) => i.status === 'broken').flatMap((i) => i.failures.map((f) => `${i.id}: ${f.explanation}`));
}

describe('the reference client, in-process on a virtual clock', () => {
  it.each(catalog.map((s) => [s.name, s] as const))('passes %s', async (_name, scenario) => {
    const run = await runScenarioInProcess(scenario, createReferenceClient, { seed: 7 });
    expect(brokenOf(run)).toEqual([]);
    expect(run.timedOut).toBe(false);
    // Every operation of the workload ended in a final state the judge could check.
    expect(run.evidence.records.length).toBeGreaterThanOrEqual(scenario.workload.length);
  });

  // 0 false alarms: no schedule fails (by the certification's rule: a broken invariant, a time bound hit, a client
  // that never acted), with webhooks as drawn and with webhooks off (a polling-only client).
  it.each([
    ['as drawn', true],
    ['off', false],
  ] as const)(
    `holds every invariant over ${LONG ? 1000 : 40} random fault schedules, webhooks %s`,
    { timeout: LONG ? 1_800_000 : 120_000 },
    async (_label, webhooks) => {
      const prepare = webhooks
        ? undefined
        : (s: Parameters<NonNullable<Parameters<typeof propertyRun>[1]['prepare']>>[0]) => ({ ...s, webhooks: false });
      const result = await propertyRun(
        { kind: 'in-process', factory: createReferenceClient },
        { runs: LONG ? 1000 : 40, seed: 424242, prepare },
      );
      const detail = result.counterexample
        ? `${result.counterexample.run.outcome.reason}\n${brokenOf(result.counterexample.run).join('\n')}\n${JSON.stringify(result.counterexample.scenario)}`
        : '';
      expect(result.failed, detail).toBe(false);
      expect(result.runs).toBe(LONG ? 1000 : 40);
      if (LONG) console.log(`webhooks ${_label}: ${JSON.stringify(result.verdicts)} in ${(result.wallMs / 1000).toFixed(1)} s`);
    },
  );

  it('certifyInProcess (the vitest helper) reports a certified client with its seed', async () => {
    const result = await certifyInProcess(createReferenceClient, { scenarios: ['lost-create-response', 'cancel-race'], runs: 5, seed: 99 });
    expect(result.ok, result.summary).toBe(true);
    expect(result.summary).toContain('seed 99');
    expect(result.scenarios.map((r) => r.scenario)).toEqual(['lost-create-response', 'cancel-race']);
  });
});
