import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { calibrate } from '../../src/conformance/calibrate.js';
import { runScenarioProcess, type ScenarioRun } from '../../src/conformance/runner/run-scenario.js';
import { getScenario, scaleScenarioTime } from '../../src/scenarios/index.js';

/**
 * The Python example client (examples/python-client) against catalog scenarios, as real processes over loopback.
 * `python3` is resolved to the interpreter it really runs (sys.executable): a version-manager shim (pyenv) can
 * add a second or more to every start, which eats the catalog's 1.5–3 s create deadlines before a worker is up.
 */
function realPython(): string | null {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

const python = realPython();
const command = python ? `'${python.replace(/'/g, `'\\''`)}' examples/python-client/client.py` : '';

function broken(run: ScenarioRun): string[] {
  return run.verdict.invariants
    .filter((i) => i.status === 'broken')
    .flatMap((i) => i.failures.map((f) => `${i.id}: ${f.explanation}`))
    .concat(run.diagnostics.map((d) => `client: ${d}`));
}

function status(run: ScenarioRun, id: string): string | undefined {
  return run.verdict.invariants.find((i) => i.id === id)?.status;
}

/** Scenario, invariants that must have been judged (held, not vacuously not_applicable), expected final state. */
const CASES: Array<[string, string[], string[] | null]> = [
  ['lost-create-response', ['I1', 'I2', 'I3'], ['succeeded']],
  ['cancel-race', ['I4', 'I5', 'I6'], ['succeeded']],
  ['corrupt-result', ['I11'], ['result_validation_failed']],
  // The cancel may win or lose against the commit point depending on machine speed; both are honest.
  ['stale-lease', ['I1', 'I9'], ['cancelled', 'succeeded', 'failed']],
  // The cancel reaches the provider after the job ended: 409 job_terminal, and the client reports what happened.
  ['cancel-after-end', ['I4', 'I5', 'I3'], ['succeeded']],
  // The create is held past the cancel deadline and executes afterwards: no job shown is not "cancelled" (decision 026).
  ['cancel-while-create-held', ['I1', 'I4', 'I5'], ['cancellation_unconfirmed']],
];

describe.skipIf(!python)('examples/python-client through the process runner', () => {
  // The time scale certify would use, measured as it does: the interpreter's start-up under the current load.
  let factor = 1;
  beforeAll(async () => {
    factor = (await calibrate(command)).factor;
  }, 60_000);

  it.each(CASES)('passes %s', { timeout: 120_000 }, async (name, judged, finals) => {
    const once = () => runScenarioProcess(scaleScenarioTime(getScenario(name), factor), command, { timeScale: factor });
    let run = await once();
    // A pause that lands inside the client's store transaction leaves no takeover to judge (not_exercised): again.
    for (let i = 0; i < 2 && run.outcome.verdict === 'not_exercised'; i++) run = await once();
    expect(run.outcome.verdict, run.outcome.reason ?? '').toBe('pass');
    expect(broken(run)).toEqual([]);
    expect(run.verdict.ok).toBe(true);
    expect(run.timedOut).toBe(false);
    for (const id of judged) expect(status(run, id), `${id} was not exercised`).toBe('held');
    const record = run.evidence.records.find((r) => r.operation_id === 'op_1');
    if (finals) expect(finals).toContain(record?.state);
  });
});
