/**
 * `certify --runs N` output while it runs: a failing schedule is named the moment it fails (what broke), the shrink
 * that follows counts its candidates apart from the seeded sequence, and the minimal schedule's file and replay
 * lines close it. Through processes a shrink can take many minutes; before, it printed "250 schedules run" for
 * `--runs 40` and nothing else. In process here, with the lane mutant (a new key on a create retry, caught by I1/I2).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certifySchedules } from '../../../src/conformance/pipeline/schedules.js';
import type { InProcessClientFactory } from '../../../src/contract/client-protocol.js';

const { newKeyOnRetry } = (await import(new URL('../mutants/lane-mutant.mjs', import.meta.url).href)) as {
  newKeyOnRetry: InProcessClientFactory;
};

/** certifySchedules on the mutant, 30 runs of seed 60, its output lines kept; the minimal schedule goes to a temp dir. */
async function certifyMutant(shrinkBudgetMs?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'jp-schedules-'));
  const lines: string[] = [];
  const minimalOut = join(dir, 'minimal.json');
  try {
    const client = { kind: 'in-process' as const, factory: newKeyOnRetry };
    const r = await certifySchedules(
      { client, runs: 30, seed: 60, lanes: 1, factor: 1, webhooks: false, minimalOut, shrinkBudgetMs },
      (l) => lines.push(l),
    );
    return { r, lines, minimalOut, minimal: JSON.parse(readFileSync(minimalOut, 'utf8')) as { name: string } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('certify --runs: progress of a failure and its shrink', () => {
  it('says which schedule failed and why, counts the shrink, then writes the minimal schedule', { timeout: 120_000 }, async () => {
    const { r, lines, minimalOut, minimal } = await certifyMutant();
    expect(r.case.verdict).toBe('fail');
    const failed = lines.findIndex((l) => /^ {2}schedule \d+ FAILED: I\d+ [a-z-]+ — /.test(l));
    const shrinking = lines.findIndex((l) => l.includes('shrinking it to a minimal failing schedule'));
    const written = lines.findIndex((l) => l.includes(`minimal schedule written to ${minimalOut}`));
    expect(failed, lines.join('\n')).toBeGreaterThan(0);
    expect(shrinking).toBe(failed + 1);
    expect(written).toBeGreaterThan(shrinking);
    // No "N schedules run" line counts shrink candidates as if they were schedules of the sequence.
    const total = Number(/FAILED after (\d+) runs/.exec(lines.join('\n'))?.[1]);
    for (const l of lines.slice(shrinking)) {
      const m = /^ {2}(\d+) schedules run$/.exec(l);
      if (m) expect(Number(m[1])).toBeLessThanOrEqual(total);
    }
    for (const l of lines.filter((x) => x.includes('shrinking:')))
      expect(l).toMatch(/shrinking: \d+ smaller schedules tried, \d+ of them still fail/);
    expect(minimal.name).toBe('minimal-failure');
  });

  it('stops shrinking at its budget and reports the smallest failure that really ran, saying so', { timeout: 120_000 }, async () => {
    const { r, lines } = await certifyMutant(0);
    expect(r.case.verdict).toBe('fail');
    expect(lines.join('\n')).toMatch(/shrunk 0 times/);
    expect(lines.join('\n')).toContain('shrinking stopped at --shrink-time 0 s');
    // No candidate ran: the schedule written is the one that failed in the sequence, and its run is a real failure.
    expect(lines.some((l) => l.includes('smaller schedules tried'))).toBe(false);
    expect(r.counterexample?.outcome.verdict).toBe('fail');
  });
});
