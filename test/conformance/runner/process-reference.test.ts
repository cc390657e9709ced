import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCatalog } from '../../../src/conformance/catalog-run.js';
import { failureLines, runPassed } from '../../../src/conformance/report/summary.js';
import { catalog, scaleScenarioTime } from '../../../src/scenarios/index.js';

// The built CLI (npm test builds first): the reference client exactly as a team would run it.
const cli = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
const command = `'${process.execPath}' '${cli}' client`;

const LONG = !!process.env.JOBPROOF_LONG;
// By default the five drills plus the scenarios that kill, pause and restart; the whole catalog with JOBPROOF_LONG
// (and `npx jobproof certify`). Times are doubled: this file shares two cores with the rest of the suite, and
// process start-up on a loaded machine must not eat the create deadlines.
const chosen = LONG ? catalog : catalog.filter((s) => s.drill || ['create-hang', 'provider-restart', 'corrupt-result'].includes(s.name));

describe('the reference client through the process runner (real processes, loopback HTTP)', () => {
  it(`passes ${LONG ? 'the whole catalog' : 'the drills and the kill/pause/restart scenarios'}: every invariant, nothing vacuous`, { timeout: 600_000 }, async () => {
    const runs = await runCatalog({ kind: 'process', command }, chosen.map((s) => scaleScenarioTime(s, 2)), { parallel: 1 });
    const failures = runs.filter((r) => !runPassed(r)).map((r) => `${r.scenario}: ${failureLines(r).join('; ')} ${r.diagnostics.join(' | ')}`);
    expect(failures).toEqual([]);
    expect(runs.map((r) => r.scenario)).toEqual(chosen.map((s) => s.name));
    // Real processes were killed, paused and restarted: the harness log shows it.
    const harness = runs.flatMap((r) => r.evidence.harness.map((h) => h.type));
    expect(harness).toEqual(expect.arrayContaining(['kill', 'pause', 'resume', 'provider_restart']));
  });
});
