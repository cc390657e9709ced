import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/conformance/calibrate.js';
import { runCatalog } from '../../src/conformance/catalog-run.js';
import { notApplicableIn } from '../../src/conformance/dialect/applicability.js';
import { failureLines, runPassed } from '../../src/conformance/report/summary.js';
import type { ScenarioRun } from '../../src/conformance/runner/run-scenario.js';
import { catalog, getScenario, scaleScenarioTime } from '../../src/scenarios/index.js';

/**
 * The SDK example clients (examples/sdk-clients/) as certify runs them: real processes on the official SDKs,
 * unmodified, against the fake's dialects over loopback. The durable ones pass; the naive ones are caught, with the
 * invariant named. The whole catalog through processes with JOBPROOF_LONG=1.
 */
const LONG = !!process.env.JOBPROOF_LONG;
const example = (file: string) =>
  `'${process.execPath}' '${fileURLToPath(new URL(`../../examples/sdk-clients/${file}`, import.meta.url))}'`;

/** `minScale`: at least this time scale, for a test whose race must not close when the load rises after calibrating. */
async function certify(file: string, dialect: 'openai' | 'anthropic', names: string[], minScale = 1): Promise<ScenarioRun[]> {
  const command = example(file);
  const factor = Math.max(minScale, (await calibrate(command, 1)).factor);
  const scenarios = names.map((n) => scaleScenarioTime({ ...getScenario(n), webhooks: false }, factor));
  return runCatalog({ kind: 'process', command, timeScale: factor, dialect }, scenarios, { parallel: 1 });
}

const failuresOf = (runs: ScenarioRun[]) =>
  runs.filter((r) => !runPassed(r)).map((r) => `${r.scenario}: ${failureLines(r).join('; ')} ${r.diagnostics.join(' | ')}`);
const broken = (r: ScenarioRun) => r.verdict.invariants.filter((i) => i.status === 'broken').map((i) => i.id);
const runnable = (d: 'openai' | 'anthropic') =>
  catalog.filter((s) => !notApplicableIn(d, s) && !s.invariants.every((i) => i === 'I13')).map((s) => s.name);

describe('SDK example clients under certify --dialect', () => {
  it.each([
    ['durable-openai.mjs', 'openai', ['lost-create-response', 'partial-batch']],
    ['durable-anthropic.mjs', 'anthropic', ['lost-create-response', 'cancel-race']],
  ] as const)('%s passes %s: recovers a lost create by listing, verifies results', { timeout: 300_000 }, async (file, dialect, names) => {
    const runs = await certify(file, dialect, LONG ? runnable(dialect) : [...names]);
    expect(failuresOf(runs)).toEqual([]);
    // Not vacuous: the lost create happened, and exactly one batch per operation exists.
    const lost = runs.find((r) => r.scenario === 'lost-create-response')!;
    expect(lost.verdict.invariants.find((i) => i.id === 'I1')!.status).toBe('held');
    const creates = lost.evidence.journal.filter((e) => e.type === 'request' && e.route === 'create' && e.effect === 'created');
    expect(creates).toHaveLength(1);
    expect(creates[0]).toMatchObject({ dialect });
  });

  it.each([
    ['naive-openai.mjs', 'openai'],
    ['naive-anthropic.mjs', 'anthropic'],
  ] as const)(
    '%s (the SDK defaults) is caught on lost-create-response: two batches, I1 broken',
    { timeout: 300_000 },
    async (file, dialect) => {
      const [run] = await certify(file, dialect, ['lost-create-response']);
      expect(run!.outcome.verdict).toBe('fail');
      expect(broken(run!)).toContain('I1');
      // The journal shows both batches: the SDK retried the create whose answer was lost, without a key.
      const created = run!.evidence.journal.filter((e) => e.type === 'request' && e.route === 'create' && e.effect === 'created');
      expect(created).toHaveLength(2);
      expect(new Set(created.map((e) => (e.type === 'request' ? e.job_id : null))).size).toBe(2);
    },
  );

  it('naive-openai.mjs reports a cancel as done without the batch confirming it (cancel-race): I4 and I5 catch it', {
    timeout: 300_000,
  }, async () => {
    // The cancel must reach the naive worker while the 5 s batch still runs. In one loaded CI run (the whole suite
    // beside it) nothing was broken at the calibrated scale: the load rose after calibrating and the race closed.
    // At 3× the batch runs 15 s and the cancel comes 0.9 s after the create answer.
    const [run] = await certify('naive-openai.mjs', 'openai', ['cancel-race'], 3);
    expect(broken(run!), `${run!.outcome.verdict}: ${run!.diagnostics.join(' | ')}`).toEqual(expect.arrayContaining(['I4', 'I5']));
  });
});
