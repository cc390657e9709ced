import { describe, expect, it } from 'vitest';
import { runScenarioInProcess } from '../../../src/conformance/runner/run-scenario.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { getScenario } from '../../../src/scenarios/index.js';
import { mutants } from './mutants.js';

describe('the judge catches deliberately broken clients, naming the right invariant', () => {
  it('has at least 14 mutants, each a different mistake', () => {
    expect(mutants.length).toBeGreaterThanOrEqual(14);
    expect(new Set(mutants.map((m) => m.name)).size).toBe(mutants.length);
  });

  it.each(mutants.map((m) => [m.name, m] as const))('%s is caught', async (_name, m) => {
    const run = await runScenarioInProcess(getScenario(m.scenario), m.factory, { seed: 11 });
    const broken = run.verdict.invariants.filter((i) => i.status === 'broken').map((i) => i.id);
    expect(run.verdict.ok, `${m.mistake}: nothing flagged on ${m.scenario}`).toBe(false);
    expect(broken, `${m.mistake}: expected ${m.caughtBy} among ${broken.join(',')}`).toContain(m.caughtBy);
  });

  it.each([...new Set(mutants.map((m) => m.scenario))])('the correct client is not flagged on %s', async (scenario) => {
    const run = await runScenarioInProcess(getScenario(scenario), createReferenceClient, { seed: 11 });
    expect(
      run.verdict.invariants.filter((i) => i.status === 'broken').flatMap((i) => i.failures.map((f) => `${i.id}: ${f.explanation}`)),
    ).toEqual([]);
  });
});
