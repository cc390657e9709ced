import { describe, expect, it } from 'vitest';
import { runScenarioInProcess } from '../../../src/conformance/runner/run-scenario.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { getScenario } from '../../../src/scenarios/index.js';
import { buildArgument } from '../../../src/conformance/report/html/argument.js';
import type { RequestEntry } from '../../../src/contract/journal.js';
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

  it('adopts-foreign-id: I10 asks for each id the client was told once, and the argument shows the id the replay served', async () => {
    const m = mutants.find((x) => x.name === 'adopts-foreign-id')!;
    const run = await runScenarioInProcess(getScenario(m.scenario), m.factory, { seed: 11 });
    const requests = run.evidence.journal.filter((e): e is RequestEntry => e.type === 'request');
    const replay = requests.find((r) => r.route === 'create' && r.effect === 'foreign_replay')!;
    const own = requests.find((r) => r.route === 'create' && r.effect === 'created')!.job_id!;
    // The journal holds what the client was told: the served id, not the key's own.
    expect(replay.job_id).not.toBe(own);
    expect(run.evidence.records[0]!.remote_job_id).toBe(replay.job_id);
    const failure = run.verdict.invariants.find((i) => i.id === 'I10')!.failures[0]!;
    const told = /\(told: ([^)]*)\)/.exec(failure.explanation)![1]!.split(', ');
    expect(new Set(told).size).toBe(told.length);
    expect(told).toEqual(expect.arrayContaining([replay.job_id, own]));
    const argument = buildArgument(failure, run.evidence);
    expect(argument.premises.map((p) => p.text).join('\n')).toContain(`(foreign replay ${replay.job_id})`);
  });

  it.each([...new Set(mutants.map((m) => m.scenario))])('the correct client is not flagged on %s', async (scenario) => {
    const run = await runScenarioInProcess(getScenario(scenario), createReferenceClient, { seed: 11 });
    expect(
      run.verdict.invariants.filter((i) => i.status === 'broken').flatMap((i) => i.failures.map((f) => `${i.id}: ${f.explanation}`)),
    ).toEqual([]);
  });
});
