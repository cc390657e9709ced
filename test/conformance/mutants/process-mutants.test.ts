import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../../src/conformance/calibrate.js';
import { runScenarioProcess } from '../../../src/conformance/runner/run-scenario.js';
import { getScenario, scaleScenarioTime } from '../../../src/scenarios/index.js';

// The classic mistakes the catalog must expose through real processes (not only the in-process property run): the
// built reference client with one mistake patched in (process/client.mjs; `npm run build` first).
const bin = fileURLToPath(new URL('./process/client.mjs', import.meta.url));
const command = (mutant: string) => `'${process.execPath}' '${bin}' ${mutant}`;

const CASES = [
  { mutant: 'cancel-terminal-is-cancelled', scenario: 'cancel-after-end', caughtBy: 'I4' },
  { mutant: 'no-lease-fencing', scenario: 'stale-lease', caughtBy: 'I9' },
  { mutant: 'no-lease-token', scenario: 'stale-lease', caughtBy: 'I9' },
] as const;

describe('the catalog catches classic mistakes through the process runner', () => {
  it.each(CASES)('$mutant is caught by $caughtBy on $scenario', { timeout: 120_000 }, async ({ mutant, scenario, caughtBy }) => {
    // Under the same calibration certify uses, so the verdict is not a matter of machine load.
    const { factor } = await calibrate(command(mutant));
    const once = () => runScenarioProcess(scaleScenarioTime(getScenario(scenario), factor), command(mutant), { timeScale: factor });
    let run = await once();
    // A SIGSTOP that lands inside the client's store transaction holds every worker back: no takeover, the run is
    // not_exercised (it proves nothing either way). Such a run is repeated, a few times at most.
    for (let i = 0; i < 3 && run.outcome.verdict === 'not_exercised'; i++) run = await once();
    const broken = run.verdict.invariants.filter((i) => i.status === 'broken').map((i) => i.id);
    expect(broken, `${mutant}: ${run.outcome.reason}; ${run.diagnostics.join(' | ')}`).toContain(caughtBy);
    expect(run.outcome.verdict).toBe('fail');
  });
});
