import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCatalog } from '../../../src/conformance/catalog-run.js';
import { failureLines, runPassed } from '../../../src/conformance/report/summary.js';
import { catalog } from '../../../src/scenarios/index.js';

// The built CLI (npm test builds first): the reference client exactly as a team would run it.
const cli = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
const command = `'${process.execPath}' '${cli}' client`;

describe('the reference client through the process runner (real processes, loopback HTTP)', () => {
  it('passes the whole catalog: every scenario, every invariant, nothing vacuous', { timeout: 300_000 }, async () => {
    const runs = await runCatalog({ kind: 'process', command }, catalog, { parallel: 2 });
    const failures = runs.filter((r) => !runPassed(r)).map((r) => `${r.scenario}: ${failureLines(r).join('; ')} ${r.diagnostics.join(' | ')}`);
    expect(failures).toEqual([]);
    expect(runs.map((r) => r.scenario)).toEqual(catalog.map((s) => s.name));
    // Real processes were killed, paused and restarted: the harness log shows it.
    const harness = runs.flatMap((r) => r.evidence.harness.map((h) => h.type));
    expect(harness).toEqual(expect.arrayContaining(['kill', 'pause', 'resume', 'provider_restart']));
  });
});
