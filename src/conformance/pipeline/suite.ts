import type { PropertyRunResult } from '../property-run.js';
import type { ReportCase, TimeScale } from '../report/schema.js';
import type { ScenarioRun } from '../runner/run-scenario.js';
import type { TaskScenarioRun } from '../tasks/judge-run.js';
import type { CertificationPlan } from './plan.js';

/** What every suite is given: the plan, the time scale it resolved to, the lanes, and where progress lines go. */
export interface SuiteContext {
  plan: CertificationPlan;
  timeScale: TimeScale;
  parallel: number;
  out: (line: string) => void;
}

/** A suite's part of the certification: its cases (one vocabulary, judged by one rule) and the runs behind them. */
export interface SuiteResult {
  cases: ReportCase[];
  /** Job scenario runs, in the chosen catalog's order (the printed evidence of failures). */
  runs?: ScenarioRun[];
  /** Runs the HTML certificate draws, by case name. */
  drawn?: Map<string, ScenarioRun>;
  property?: PropertyRunResult;
  minimalOut?: string;
  taskRuns?: TaskScenarioRun[];
}

/** A suite plugs into the pipeline: it brings its scenarios, runs them through its driver and judges them. */
export interface Suite {
  readonly name: 'jobs' | 'tasks';
  run(ctx: SuiteContext): Promise<SuiteResult>;
}

export { runInLanes, type ScenarioDriver } from './lanes.js';
