import { INVARIANTS, type InvariantId } from '../invariants.js';
import type { PropertyRunResult } from '../property-run.js';
import type { ScenarioRun } from '../runner/run-scenario.js';

/** Everything a report needs about one certification, independent of its format. */
export interface Certification {
  version: string;
  client: string;
  runner: 'process' | 'in-process';
  seed: number;
  startedAt: string;
  wallMs: number;
  scenarios: ScenarioRun[];
  property?: PropertyRunResult;
  /** `--shard i/n`: this certificate is one part; `positions[k]` is scenarios[k]'s place in the whole catalog. */
  shard?: { index: number; count: number; positions: number[] };
  /** A certificate joined by `report merge` from these shards. */
  mergedFrom?: number;
}

export type Cell = 'held' | 'broken' | 'not_applicable';

export function cellOf(run: ScenarioRun, id: InvariantId): Cell {
  return run.verdict.invariants.find((i) => i.id === id)?.status ?? 'not_applicable';
}

/** A scenario passes when every invariant held, the run ended in time, and it tested what it exists to test. */
export function runPassed(r: ScenarioRun): boolean {
  return r.verdict.ok && !r.timedOut && !r.vacuous;
}

export function passed(c: Certification): boolean {
  return c.scenarios.every(runPassed) && !(c.property?.failed ?? false);
}

/** Per invariant across all runs: broken anywhere → broken; held somewhere → held. */
export function invariantTotals(c: Certification): Array<{ id: InvariantId; name: string; status: Cell; brokenIn: string[] }> {
  const runs = [...c.scenarios, ...(c.property?.counterexample ? [c.property.counterexample.run] : [])];
  return INVARIANTS.map(({ id, name }) => {
    const cells = runs.map((r) => ({ r, cell: cellOf(r, id) }));
    const brokenIn = cells.filter((x) => x.cell === 'broken').map((x) => x.r.scenario);
    const status: Cell = brokenIn.length ? 'broken' : cells.some((x) => x.cell === 'held') ? 'held' : 'not_applicable';
    return { id, name, status, brokenIn };
  });
}

export function failureLines(run: ScenarioRun): string[] {
  const lines: string[] = [];
  for (const inv of run.verdict.invariants) {
    for (const f of inv.failures) lines.push(`${inv.id} ${inv.name} — ${f.operation_id}: ${f.explanation}`);
  }
  if (run.timedOut) lines.push('the run hit its time bound before every operation was final');
  if (run.vacuous) lines.push(`none of the invariants this scenario probes could be judged (did any create reach the provider? a slow-starting client may miss its create deadline)`);
  return lines;
}
