import type { PropertyRunResult } from '../property-run.js';
import { buildReport } from '../report/build.js';
import type { CertificationReport, ReportCase } from '../report/schema.js';
import type { ScenarioRun } from '../runner/run-scenario.js';
import type { TaskScenarioRun } from '../tasks/judge-run.js';
import { jobsSuite } from './jobs-suite.js';
import { timeScaleLine } from './lines.js';
import type { CertificationPlan } from './plan.js';
import type { Suite } from './suite.js';
import { tasksSuite } from './tasks-suite.js';
import { resolveTimeScale } from './time-scale.js';

export interface CertificationResult {
  /** The one report; `report.passed` is `certified(report.cases)`. */
  report: CertificationReport;
  /** The job scenario runs, in the chosen catalog's order. */
  runs: ScenarioRun[];
  /** Runs the HTML certificate draws, by case name. */
  drawn: Map<string, ScenarioRun>;
  property?: PropertyRunResult;
  minimalOut?: string;
  taskRuns: TaskScenarioRun[];
}

/** The suites a plan asks for, in the order they run: jobs (catalog, then random schedules), then tasks. */
export function suitesOf(plan: CertificationPlan): Suite[] {
  return [plan.jobs ? jobsSuite(plan.jobs) : null, plan.tasks ? tasksSuite(plan.tasks) : null].filter((s) => s !== null);
}

/**
 * The certification pipeline: a plan in, a report out. It resolves the time scale, runs each suite (each brings
 * its scenarios, its driver and its judge), and totals the cases by the one pass rule. The CLI (`certify`), the
 * library (`certifyInProcess`, `expectCertified`) and, through `buildReport`, `report merge` all come here.
 */
export async function certify(plan: CertificationPlan, out: (line: string) => void = () => {}): Promise<CertificationResult> {
  const started = Date.now();
  const { timeScale, parallel } = await resolveTimeScale(plan, out);
  out(timeScaleLine(timeScale));
  const cases: ReportCase[] = [];
  const result: Omit<CertificationResult, 'report'> = { runs: [], drawn: new Map(), taskRuns: [] };
  for (const suite of suitesOf(plan)) {
    const r = await suite.run({ plan, timeScale, parallel, out });
    cases.push(...r.cases);
    result.runs.push(...(r.runs ?? []));
    for (const [k, v] of r.drawn ?? []) result.drawn.set(k, v);
    result.taskRuns.push(...(r.taskRuns ?? []));
    result.property ??= r.property;
    result.minimalOut ??= r.minimalOut;
  }
  const report = buildReport(
    {
      version: plan.version,
      client: plan.label,
      runner: plan.client.kind,
      seed: plan.seed,
      startedAt: new Date(started).toISOString(),
      wallMs: Date.now() - started,
      timeScale,
      webhooks: plan.webhooks,
      dialect: plan.dialect,
      profile: plan.profile ? { name: plan.profile.profile.name, source: plan.profile.source } : undefined,
    },
    cases,
  );
  if (plan.shard) report.shard = { index: plan.shard.index, count: plan.shard.count };
  return { report, ...result };
}
