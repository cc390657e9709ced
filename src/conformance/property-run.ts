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
  onRun?: (n: number, run: ScenarioRun, scenario: Scenario) => void;
  /** Run only this shard's schedules of the seeded sequence (the others are generated, not run). */
  shard?: Shard;
  /**
   * Applied to every drawn schedule before it runs, as certify does to the catalog: the time scale, and webhooks off
   * for a client that did not declare them (a schedule never switches webhooks on for such a client).
   */
  prepare?: (s: Scenario) => Scenario;
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
  let failedOnce = false;
  const property = fc.asyncProperty(scheduleArb, async (input: ScenarioInput) => {
    // fast-check generates the same sequence for a seed whatever the predicate answers, so skipping other shards'
    // positions keeps each shard's schedules identical to the unsharded run's. Once one failed, fast-check is
    // shrinking: every candidate must really run.
    if (!failedOnce && !inShard(position++, opts.shard)) return true;
    const scenario = prepare(parseScenario({ ...input, name: 'generated' }));
    const run = await runOne(client, scenario, seed);
    verdicts[run.outcome.verdict] = (verdicts[run.outcome.verdict] ?? 0) + 1;
    opts.onRun?.(++n, run, scenario);
    const ok = run.outcome.verdict !== 'fail';
    if (!ok) {
      last = { scenario, run };
      failedOnce = true;
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
  if (details.failed && details.counterexample) {
    // The last failing run fast-check made is the shrunk one; run it once more to report on exactly that schedule.
    const scenario = prepare(
      parseScenario({ ...details.counterexample[0], name: 'minimal-failure', title: 'Minimal failing schedule (shrunk by fast-check)' }),
    );
    const run =
      last && JSON.stringify(last.scenario.actions) === JSON.stringify(scenario.actions) ? last.run : await runOne(client, scenario, seed);
    result.counterexample = { scenario, run };
    result.path = details.counterexamplePath ?? undefined;
    result.numShrinks = details.numShrinks;
  }
  return result;
}
