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
  { mutant: 'trusts-unsigned-webhooks', scenario: 'forged-webhook', caughtBy: 'I13' },
] as const;

describe('the catalog catches classic mistakes through the process runner', () => {
  it.each(CASES)('$mutant is caught by $caughtBy on $scenario', { timeout: 120_000 }, async ({ mutant, scenario, caughtBy }) => {
    // Under the same calibration certify uses, so the verdict is not a matter of machine load.
    const { factor } = await calibrate(command(mutant));
    // One run, no retry: both scenarios pause the worker once its record shows the create's answer (create_recorded),
    // so the SIGSTOP never lands inside the store write that records it, which held every other writer back (the
    // takeover, the harness's cancel) and made the run not_exercised by luck of timing.
    const run = await runScenarioProcess(scaleScenarioTime(getScenario(scenario), factor), command(mutant), { timeScale: factor });
    const broken = run.verdict.invariants.filter((i) => i.status === 'broken').map((i) => i.id);
    const story = run.evidence.journal
      .map((e) => (e.type === 'request' ? `${e.worker_id} ${e.route} ${e.status} ${e.code ?? ''}` : `${e.type}`))
      .join(', ');
    const history = run.evidence.records[0]?.history.map((h) => `${h.at.slice(17)} ${h.to} (${h.cause})`).join(', ');
    expect(
      broken,
      `${mutant}: ${run.outcome.reason}; ${story}; ${history}; ${run.evidence.harness.map((h) => `${h.at.slice(17)} ${h.type}`).join(', ')}; ${run.diagnostics.join(' | ')}`,
    ).toContain(caughtBy);
    expect(run.outcome.verdict).toBe('fail');
    if (scenario === 'cancel-after-end')
      expect(run.evidence.journal.some((e) => e.type === 'request' && e.code === 'job_terminal')).toBe(true);
  });
});
