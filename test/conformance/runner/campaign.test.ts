/**
 * The standing random campaign (issue 23): the reference client against random workloads, fault plans and harness
 * schedules — 2,000 in-process schedules on each of seeds 1–12, and 100 through real processes — every one passing.
 * A failure is shrunk by fast-check and written to test/conformance/fixtures/regressions/ (campaign-…json), where the
 * regression suite replays it on every test run from then on.
 *
 * Only with JOBPROOF_LONG=1 (hours of CPU). JOBPROOF_CAMPAIGN_SEEDS ("1-12", or "3" or "1,5"), JOBPROOF_CAMPAIGN_RUNS
 * (2000) and JOBPROOF_CAMPAIGN_PROCESS_RUNS (100) narrow it, e.g. to try one seed. The process part runs the built
 * client (npm run build first).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { referenceCommand } from '../../../src/cli/reference-command.js';
import { calibrate } from '../../../src/conformance/calibrate.js';
import type { ClientUnderTest } from '../../../src/conformance/catalog-run.js';
import { prepareDrawn } from '../../../src/conformance/property-lanes.js';
import { propertyRun, type PropertyRunResult } from '../../../src/conformance/property-run.js';
import { failureLines } from '../../../src/conformance/report/summary.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';

const LONG = !!process.env.JOBPROOF_LONG;
const REGRESSIONS = fileURLToPath(new URL('../fixtures/regressions/', import.meta.url));
/** Shrinking a failure may take this long; past it the smallest failure found so far is kept. */
const SHRINK_MS = 20 * 60_000;

function seeds(spec = '1-12'): number[] {
  return spec.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i);
  });
}
const SEEDS = seeds(process.env.JOBPROOF_CAMPAIGN_SEEDS);
const RUNS = Number(process.env.JOBPROOF_CAMPAIGN_RUNS ?? 2000);
const PROCESS_RUNS = Number(process.env.JOBPROOF_CAMPAIGN_PROCESS_RUNS ?? 100);

/** The shrunk failure as a regression fixture, and what a person needs to start on it. */
function keepFailure(result: PropertyRunResult, label: string): string {
  if (!result.failed || !result.counterexample) return '';
  const name = `campaign-${label}-seed-${result.seed}`;
  const file = join(REGRESSIONS, `${name}.json`);
  const scenario = {
    ...result.counterexample.scenario,
    name,
    title: `Campaign ${label}, seed ${result.seed}, schedule ${(result.failedAt ?? 0) + 1} (shrunk)`,
  };
  writeFileSync(file, `${JSON.stringify(scenario, null, 2)}\n`);
  return [
    `schedule ${(result.failedAt ?? 0) + 1} of seed ${result.seed} failed; shrunk to ${file}`,
    ...failureLines(result.counterexample.run),
  ].join('\n');
}

async function campaign(client: ClientUnderTest, seed: number, runs: number, label: string, timeScale = 1): Promise<void> {
  const result = await propertyRun(client, { runs, seed, prepare: prepareDrawn({ timeScale }), shrinkBudgetMs: SHRINK_MS });
  console.log(
    `campaign ${label} seed ${seed}: ${result.runs} schedules, ${JSON.stringify(result.verdicts)} in ${(result.wallMs / 1000).toFixed(1)} s`,
  );
  expect(result.failed, keepFailure(result, label)).toBe(false);
  expect(result.runs).toBe(runs);
}

describe.runIf(LONG)('the standing random campaign', () => {
  it.each(SEEDS)(`${RUNS} in-process schedules on seed %i all pass`, { timeout: 6 * 3_600_000 }, async (seed) => {
    await campaign({ kind: 'in-process', factory: createReferenceClient }, seed, RUNS, 'in-process');
  });

  it(`${PROCESS_RUNS} schedules through real processes all pass`, { timeout: 6 * 3_600_000 }, async () => {
    const command = referenceCommand(fileURLToPath(new URL('../../../dist/cli/', import.meta.url)));
    const { factor } = await calibrate(command);
    await campaign({ kind: 'process', command, timeScale: factor }, SEEDS[0]!, PROCESS_RUNS, 'process', factor);
  });
});
