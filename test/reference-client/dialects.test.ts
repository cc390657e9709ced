import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../src/conformance/calibrate.js';
import { runCatalog } from '../../src/conformance/catalog-run.js';
import { notApplicableIn } from '../../src/conformance/dialect/applicability.js';
import { failureLines, runPassed } from '../../src/conformance/report/summary.js';
import type { ScenarioRun } from '../../src/conformance/runner/run-scenario.js';
import { catalog, getScenario, scaleScenarioTime } from '../../src/scenarios/index.js';

/**
 * The reference client (`jobproof client`, no SDK) in each wire dialect, judged as `certify --dialect` judges it:
 * real processes over loopback against the fake's OpenAI and Anthropic dialects. By default a representative subset
 * (a lost create recovered by listing, a cancel racing the end, a stale lease holder fenced off); the whole catalog
 * with JOBPROOF_LONG=1. Needs `npm run build` first.
 */
const LONG = !!process.env.JOBPROOF_LONG;
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const command = `'${process.execPath}' '${cli}' client`;
const SUBSET = ['lost-create-response', 'cancel-race', 'stale-lease'];
type Dialect = 'openai' | 'anthropic';

const runnable = (d: Dialect) =>
  catalog.filter((s) => !notApplicableIn(d, s) && !s.invariants.every((i) => i === 'I13')).map((s) => s.name);

async function certify(dialect: Dialect, names: string[]): Promise<ScenarioRun[]> {
  const { factor } = await calibrate(command, 1);
  const scenarios = names.map((n) => scaleScenarioTime({ ...getScenario(n), webhooks: false }, factor));
  return runCatalog({ kind: 'process', command, timeScale: factor, dialect }, scenarios, { parallel: LONG ? 2 : 1 });
}

const failuresOf = (runs: ScenarioRun[]) =>
  runs.filter((r) => !runPassed(r)).map((r) => `${r.scenario}: ${failureLines(r).join('; ')} ${r.diagnostics.join(' | ')}`);
const status = (r: ScenarioRun, id: string) => r.verdict.invariants.find((i) => i.id === id)?.status;

describe('the reference client in every dialect (JOBPROOF_DIALECT)', () => {
  it.each(['openai', 'anthropic'] as const)(
    `passes ${LONG ? 'the whole catalog' : SUBSET.join(', ')} in %s through processes`,
    { timeout: LONG ? 1_800_000 : 120_000 },
    async (dialect) => {
      const names = LONG ? runnable(dialect) : SUBSET;
      const runs = await certify(dialect, names);
      expect(failuresOf(runs)).toEqual([]);
      expect(runs.map((r) => r.scenario)).toEqual(names);
      const req = (r: ScenarioRun) => r.evidence.journal.filter((e) => e.type === 'request');

      // Not vacuous. The lost create was recovered by listing the account's batches, and exactly one batch exists.
      const lost = runs.find((r) => r.scenario === 'lost-create-response')!;
      expect(status(lost, 'I1')).toBe('held');
      const created = req(lost).filter((e) => e.type === 'request' && e.route === 'create' && e.effect === 'created');
      expect(created).toHaveLength(1);
      expect(created[0]).toMatchObject({ dialect });
      expect(req(lost).some((e) => e.type === 'request' && e.route === 'list')).toBe(true);
      // Every request was a dialect request: nothing native leaked out of the adapter.
      expect(req(lost).every((e) => e.type === 'request' && e.dialect === dialect)).toBe(true);

      if (!LONG) {
        expect(status(runs.find((r) => r.scenario === 'cancel-race')!, 'I5')).toBe('held');
        const stale = runs.find((r) => r.scenario === 'stale-lease')!;
        expect(status(stale, 'I9')).toBe('held');
        expect(stale.evidence.harness.map((h) => h.type)).toEqual(expect.arrayContaining(['pause', 'resume']));
      }
    },
  );

  it('still refuses a dialect it does not know, with exit 2', async () => {
    const { spawnSync } = await import('node:child_process');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const state = mkdtempSync(join(tmpdir(), 'jobproof-dialect-'));
    const r = spawnSync(process.execPath, [cli, 'client', 'show', 'op_x'], {
      env: {
        ...process.env,
        JOBPROOF_STATE: state,
        JOBPROOF_PROVIDER_URL: 'http://127.0.0.1:9',
        JOBPROOF_TOKEN: 't',
        JOBPROOF_DIALECT: 'gemini',
      },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/JOBPROOF_DIALECT must be one of native, openai, anthropic; got gemini/);
    // A known dialect gets the ordinary refusal of an unknown operation, not a dialect one.
    for (const d of ['openai', 'anthropic', 'native']) {
      const ok = spawnSync(process.execPath, [cli, 'client', 'show', 'op_x'], {
        env: {
          ...process.env,
          JOBPROOF_STATE: state,
          JOBPROOF_PROVIDER_URL: 'http://127.0.0.1:9',
          JOBPROOF_TOKEN: 't',
          JOBPROOF_DIALECT: d,
        },
        encoding: 'utf8',
      });
      expect(ok.status).toBe(2);
      expect(ok.stderr).toMatch(/unknown operation op_x/);
    }
  });
});
