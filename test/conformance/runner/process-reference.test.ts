import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { referenceCommand } from '../../../src/cli/reference-command.js';
import { calibrate } from '../../../src/conformance/calibrate.js';
import { runCatalog } from '../../../src/conformance/catalog-run.js';
import { failureLines, runPassed } from '../../../src/conformance/report/summary.js';
import type { ScenarioRun } from '../../../src/conformance/runner/run-scenario.js';
import { catalog, scaleScenarioTime, type Scenario } from '../../../src/scenarios/index.js';

// The built reference client (npm run build first) as certify runs it by default: the bundle.
const command = referenceCommand(fileURLToPath(new URL('../../../dist/cli/', import.meta.url)));

const LONG = !!process.env.JOBPROOF_LONG;
// By default the five drills plus the scenarios that kill, pause and restart; the whole catalog with JOBPROOF_LONG
// (and `npx jobproof certify`). Times are scaled as certify scales them: calibrated under the current load.
const chosen = LONG
  ? catalog
  : catalog.filter((s) => s.drill || ['create-hang', 'provider-restart', 'corrupt-result', 'cancel-after-end'].includes(s.name));

async function certifyCatalog(scenarios: readonly Scenario[], webhooks: boolean): Promise<{ runs: ScenarioRun[]; factor: number }> {
  const { factor } = await calibrate(command, 1);
  const prepared = scenarios.map((s) => scaleScenarioTime({ ...s, webhooks: s.webhooks && webhooks }, factor));
  // Webhook-only scenarios are skipped without webhooks (certify does the same).
  const runnable = prepared.filter(
    (s) => webhooks || !(s.invariants.every((i) => i === 'I13') && scenarios.find((x) => x.name === s.name)!.webhooks),
  );
  return { runs: await runCatalog({ kind: 'process', command, timeScale: factor }, runnable, { parallel: 1 }), factor };
}

const failuresOf = (runs: ScenarioRun[]) =>
  runs.filter((r) => !runPassed(r)).map((r) => `${r.scenario}: ${failureLines(r).join('; ')} ${r.diagnostics.join(' | ')}`);

describe('the reference client through the process runner (real processes, loopback HTTP)', () => {
  it(`passes ${LONG ? 'the whole catalog' : 'the drills and the kill/pause/restart scenarios'}: every invariant, nothing vacuous`, {
    timeout: 900_000,
  }, async () => {
    const { runs } = await certifyCatalog(chosen, true);
    expect(failuresOf(runs)).toEqual([]);
    expect(runs.map((r) => r.scenario)).toEqual(chosen.map((s) => s.name));
    // Real processes were killed, paused and restarted: the harness log shows it.
    const harness = runs.flatMap((r) => r.evidence.harness.map((h) => h.type));
    expect(harness).toEqual(expect.arrayContaining(['kill', 'pause', 'resume', 'provider_restart']));
  });

  // The stress test of issue 11: two CPU-burning processes beside the catalog change how long it takes, not its
  // verdicts (the time scale is calibrated under that load). Long: two full catalogs through processes.
  it.runIf(LONG).each([true, false])(
    'gives the same verdicts with two CPU hogs beside it as on a quiet machine (webhooks %s)',
    { timeout: 1_800_000 },
    async (webhooks) => {
      const quiet = await certifyCatalog(catalog, webhooks);
      const hogs = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
      let busy: Awaited<ReturnType<typeof certifyCatalog>>;
      try {
        busy = await certifyCatalog(catalog, webhooks);
      } finally {
        for (const h of hogs) h.kill('SIGKILL');
      }
      const verdicts = (runs: ScenarioRun[]) =>
        Object.fromEntries(
          runs.map((r) => [r.scenario, r.outcome.verdict === 'not_exercised' ? 'not failed' : runPassed(r) ? 'not failed' : 'fail']),
        );
      expect(failuresOf(busy.runs)).toEqual([]);
      expect(verdicts(busy.runs)).toEqual(verdicts(quiet.runs));
      console.log(`time scale quiet ${quiet.factor}×, with two CPU hogs ${busy.factor}×`);
    },
  );
});
