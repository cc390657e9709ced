import fc from 'fast-check';
import { parseScenario, scheduleArb, type Scenario, type ScenarioInput } from '../scenarios/index.js';
import { runOne, type ClientUnderTest } from './catalog-run.js';
import type { CaseVerdict } from './outcome.js';
import type { ScenarioRun } from './runner/run-scenario.js';
import { inShard, type Shard } from './shard.js';

export interface PropertyRunOptions {
  runs: number;
  seed?: number;
  /** fast-check replay path of a failure printed earlier. */
  path?: string;
  /** After each schedule; `position` in the seeded sequence, undefined for a shrinking candidate. */
  onRun?: (n: number, run: ScenarioRun, scenario: Scenario, position?: number) => void;
  /** Run only this shard's schedules of the seeded sequence (the others are generated, not run). */
  shard?: Shard;
  /**
   * Applied to every drawn schedule before it runs, as certify does to the catalog: the time scale, and webhooks off
   * for a client that did not declare them (a schedule never switches webhooks on for such a client).
   */
  prepare?: (s: Scenario) => Scenario;
  /**
   * Property lanes (property-lanes.ts): the lowest position another lane of the same seed has failed at. Positions
   * past it are not run (the first failure of the sequence lies before them), and neither is a shrink of a failure
   * past it (its result is dropped).
   */
  failedElsewhere?: () => number;
  /**
   * How long shrinking may take (ms, from the first failure); unbounded when absent. Past it every further candidate
   * is answered "passes" without running, so fast-check ends with the smallest schedule that really failed.
   */
  shrinkBudgetMs?: number;
}

export interface PropertyRunResult {
  /** Schedules of the seeded sequence gone through (all asked for, or up to the first failure). */
  runs: number;
  /** Schedules asked for (`--runs`): the same in every shard of one certification. */
  planned?: number;
  /** Schedules this process ran: `runs` unsharded, about runs/n in a shard (plus shrinking after a failure). */
  executed?: number;
  seed: number;
  failed: boolean;
  /** Schedules per case verdict (the same rule as the catalog: a time bound hit or a client that never acted fails). */
  verdicts: Partial<Record<CaseVerdict, number>>;
  /** The smallest failing schedule fast-check found, as a scenario, with its run. */
  counterexample?: { scenario: Scenario; run: ScenarioRun };
  path?: string;
  numShrinks?: number;
  /** Position in the seeded sequence of the first failing schedule (before shrinking). */
  failedAt?: number;
  /** Shrinking stopped at `shrinkBudgetMs`: the counterexample is the smallest found by then, maybe not a minimal one. */
  shrinkCut?: boolean;
  wallMs: number;
}

/**
 * Random workloads and fault schedules, every invariant checked on each; a failure is shrunk by fast-check to the
 * smallest schedule that still breaks an invariant, and comes back as a replayable scenario.
 */
export async function propertyRun(client: ClientUnderTest, opts: PropertyRunOptions): Promise<PropertyRunResult> {
  const seed = opts.seed ?? Date.now() % 2 ** 31;
  const start = Date.now();
  let n = 0;
  let last: { scenario: Scenario; run: ScenarioRun } | undefined;
  const prepare = opts.prepare ?? ((s: Scenario) => s);
  const verdicts: Partial<Record<CaseVerdict, number>> = {};
  let position = 0;
  let failedAt: number | undefined;
  let failedTime: number | undefined;
  let shrinkCut = false;
  const elsewhere = opts.failedElsewhere ?? (() => Number.POSITIVE_INFINITY);
  const property = fc.asyncProperty(scheduleArb, async (input: ScenarioInput) => {
    // fast-check generates the same sequence for a seed whatever the predicate answers, so skipping other shards'
    // positions keeps each shard's schedules identical to the unsharded run's. Once one failed, fast-check is
    // shrinking: every candidate must really run (unless another lane failed earlier: this shrink is then moot).
    const at = failedAt === undefined ? position++ : undefined;
    if (at !== undefined && (!inShard(at, opts.shard) || at > elsewhere())) return true;
    if (at === undefined && failedAt! > elsewhere()) return true;
    if (at === undefined && opts.shrinkBudgetMs !== undefined && Date.now() - failedTime! >= opts.shrinkBudgetMs) {
      shrinkCut = true;
      return true;
    }
    const scenario = prepare(parseScenario({ ...input, name: 'generated' }));
    const run = await runOne(client, scenario, seed);
    verdicts[run.outcome.verdict] = (verdicts[run.outcome.verdict] ?? 0) + 1;
    n++;
    opts.onRun?.(n, run, scenario, at);
    const ok = run.outcome.verdict !== 'fail';
    if (!ok) {
      last = { scenario, run };
      failedAt ??= at;
      failedTime ??= Date.now();
    }
    return ok;
  });
  const details = await fc.check(property, { numRuns: opts.runs, seed, path: opts.path, endOnFailure: false });
  const result: PropertyRunResult = {
    runs: details.numRuns,
    planned: opts.runs,
    executed: n,
    seed,
    failed: details.failed,
    verdicts,
    wallMs: Date.now() - start,
  };
  if (failedAt !== undefined && opts.path === undefined) result.failedAt = failedAt;
  // A lane whose failure lies past another lane's has nothing to report: the merge takes the earlier one.
  if (details.failed && details.counterexample && !(failedAt! > elsewhere())) {
    // The last failing run fast-check made is the shrunk one; run it once more to report on exactly that schedule.
    const scenario = prepare(
      parseScenario({ ...details.counterexample[0], name: 'minimal-failure', title: 'Minimal failing schedule (shrunk by fast-check)' }),
    );
    const run =
      last && JSON.stringify(last.scenario.actions) === JSON.stringify(scenario.actions) ? last.run : await runOne(client, scenario, seed);
    result.counterexample = { scenario, run };
    result.path = details.counterexamplePath ?? undefined;
    result.numShrinks = details.numShrinks;
    if (shrinkCut) result.shrinkCut = true;
  }
  return result;
}
