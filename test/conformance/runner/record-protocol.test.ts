import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { referenceCommand } from '../../../src/cli/reference-command.js';
import { calibrate } from '../../../src/conformance/calibrate.js';
import { horizonMs } from '../../../src/conformance/runner/execute/run-state.js';
import { runScenarioProcess, type ScenarioRun } from '../../../src/conformance/runner/run-scenario.js';
import { getScenario, scaleScenarioTime, type Scenario } from '../../../src/scenarios/index.js';

/**
 * client-protocol.md, "Operation record": `idempotency_key` and `trace_id` may be null, and a `show` that prints
 * something else than a record is one protocol error for the operation, never a cascade nor a run to the time bound.
 * The client under test is the built reference client (npm run build first) with its `show` rewritten by a script.
 */
const reference = referenceCommand(fileURLToPath(new URL('../../../dist/cli/', import.meta.url)));
const rewriting = fileURLToPath(new URL('../../fixtures/clients/record-rewriting-client.sh', import.meta.url));
const rewritten = (mode: 'null' | 'bad') => `'${rewriting}' ${mode} ${Buffer.from(reference).toString('base64')}`;

/** The run ended on its own: before the margin the harness adds past the scenario's last deadline and quiet time. */
function endedInItsTime(run: ScenarioRun, s: Scenario): void {
  expect(run.timedOut).toBe(false);
  expect(run.runMs).toBeLessThan(horizonMs(s) + s.quiet_timeout_ms);
}

const failures = (run: ScenarioRun) => run.verdict.invariants.flatMap((i) => i.failures.map((f) => `${i.id}: ${f.explanation}`));

describe('records the judge reads through the process runner', () => {
  let factor = 1;
  beforeAll(async () => {
    factor = (await calibrate(reference)).factor;
  }, 60_000);

  it.each(['lost-create-response', 'crash-after-job-id'])(
    'a dialect client printing null idempotency_key and trace_id is judged on what it did (%s)',
    { timeout: 120_000 },
    async (name) => {
      const s = scaleScenarioTime(getScenario(name), factor);
      const run = await runScenarioProcess(s, rewritten('null'), { timeScale: factor, dialect: 'openai' });
      endedInItsTime(run, s);
      expect(run.protocolErrors).toBeUndefined();
      expect(run.evidence.records.map((r) => [r.idempotency_key, r.trace_id])).toEqual([[null, null]]);
      const status = (id: string) => run.verdict.invariants.find((i) => i.id === id)?.status;
      // I3 and I15 were what an unreadable record broke; I2 is not applicable in a dialect without keys.
      for (const id of ['I3', 'I15']) expect(status(id), failures(run).join('\n')).toBe('held');
      for (const id of s.invariants) expect(status(id), failures(run).join('\n')).not.toBe('broken');
      expect(failures(run).filter((f) => !f.startsWith('I14:'))).toEqual([]);
      // The missing trace id is reported as that, not as a missing record.
      for (const f of failures(run)) expect(f).toContain('has no trace id');
      expect(failures(run).join('\n')).not.toContain('no record');
    },
  );

  it('a record that does not match the protocol is one error naming the field and the value, and the run ends early', {
    timeout: 120_000,
  }, async () => {
    const s = scaleScenarioTime(getScenario('lost-create-response'), factor);
    const run = await runScenarioProcess(s, rewritten('bad'), { timeScale: factor });
    endedInItsTime(run, s);
    expect(run.outcome.verdict).toBe('fail');
    expect(run.protocolErrors).toHaveLength(1);
    expect(run.protocolErrors![0]).toMatch(/^protocol error — op_1: .*trace_id = 42 /);
    expect(run.outcome.reason).toBe(run.protocolErrors![0]);
    // No cascade: nothing the judge could not read is held against the operation as a broken invariant.
    expect(failures(run)).toEqual([]);
  });
});
