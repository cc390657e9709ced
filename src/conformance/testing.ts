import type { InProcessClientFactory } from '../contract/client-protocol.js';
import type { InProcessTaskClientFactory } from '../contract/task-client-protocol.js';
import { catalog, getScenario, type Scenario } from '../scenarios/index.js';
import { certify } from './pipeline/certify.js';
import type { CertificationPlan } from './pipeline/plan.js';
import type { PropertyRunResult } from './property-run.js';
import { failureLines } from './report/build.js';
import type { CertificationReport } from './report/schema.js';
import type { ScenarioRun } from './runner/run-scenario.js';
import type { TaskScenarioRun } from './tasks/judge-run.js';

export interface CertifyInProcessOptions {
  /** Catalog scenarios to run: 'all' (default) or names ([]: none). */
  scenarios?: 'all' | string[];
  /** Random fault schedules after the catalog (default 50). */
  runs?: number;
  /** Seed of the random schedules; fixed by default so a test suite is reproducible. */
  seed?: number;
  /** Whether the client listens for webhooks (default true); without, webhook-only scenarios are skipped. */
  webhooks?: boolean;
  /** A task client: the task scenarios (tasks-api.md) run too, in the same certification. */
  tasks?: InProcessTaskClientFactory;
  /** Task scenarios to run (default: all of them, when `tasks` is given). */
  taskScenarios?: string[];
}

export interface InProcessCertification {
  /** `report.passed`: no case failed and at least one passed, the rule of `jobproof certify`. */
  ok: boolean;
  scenarios: ScenarioRun[];
  property?: PropertyRunResult;
  tasks: TaskScenarioRun[];
  /** The certification report, the same structure `certify --report json=…` writes. */
  report: CertificationReport;
  /** A readable account of every failure, with the seed to replay it. */
  summary: string;
}

/** The plan `certifyInProcess` hands the pipeline: the same one `certify --in-process` builds from its flags. */
export function inProcessPlan(factory: InProcessClientFactory | null, opts: CertifyInProcessOptions = {}): CertificationPlan {
  const chosen: Scenario[] = opts.scenarios === undefined || opts.scenarios === 'all' ? [...catalog] : opts.scenarios.map(getScenario);
  return {
    version: 'library',
    label: 'in-process client (certifyInProcess)',
    client: { kind: 'in-process', jobs: factory ?? undefined, tasks: opts.tasks },
    webhooks: opts.webhooks ?? true,
    dialect: 'native',
    seed: opts.seed ?? 20261129,
    parallel: 1,
    parallelGiven: false,
    jobs: factory ? { scenarios: chosen, runs: opts.runs ?? 50, lanes: 1 } : undefined,
    tasks: opts.tasks ? { scenarios: opts.taskScenarios } : undefined,
  };
}

/** Every failing case as readable lines; the shrunk schedule of a failing property run as a replayable scenario. */
function summaryOf(report: CertificationReport, property: PropertyRunResult | undefined): string {
  const c = report.counts;
  const counts = `${c.pass} pass, ${c.fail} fail, ${c.not_exercised} not exercised, ${c.skipped} skipped, ${c.not_applicable} not applicable`;
  if (report.passed) return `certified: ${report.cases.length} cases (${counts}; seed ${report.seed})`;
  const lines: string[] = [];
  for (const k of report.cases.filter((x) => x.verdict === 'fail')) {
    if (k.kind === 'schedules' && property?.counterexample) {
      lines.push(`property run failed (seed ${property.seed}, path ${property.path}); minimal schedule:`);
      for (const l of failureLines(property.counterexample.run)) lines.push(`  ${l}`);
      lines.push(JSON.stringify(property.counterexample.scenario));
    } else for (const l of k.failures.length ? k.failures : [k.reason ?? 'failed']) lines.push(`${k.name}: ${l}`);
  }
  if (!lines.length) lines.push(`no case passed: nothing was tested (${report.pass_rule})`);
  return `${lines.join('\n')}\n(${counts})`;
}

/**
 * Certify a TypeScript client inside your own test suite, on a virtual clock, seeded — through the same pipeline
 * and pass rule as `jobproof certify`:
 *
 *   it('survives the jobproof catalog', async () => {
 *     await expectCertified(myClientFactory, { runs: 100 });
 *   });
 *
 * With `tasks`, the task scenarios run too (pass `null` as the job factory to certify a task client alone).
 */
export async function certifyInProcess(
  factory: InProcessClientFactory | null,
  opts: CertifyInProcessOptions = {},
): Promise<InProcessCertification> {
  const r = await certify(inProcessPlan(factory, opts));
  return {
    ok: r.report.passed,
    scenarios: r.runs,
    property: r.property,
    tasks: r.taskRuns,
    report: r.report,
    summary: summaryOf(r.report, r.property),
  };
}

/** Throws an Error listing every failure (works with vitest, jest, node:test, mocha). */
export async function expectCertified(
  factory: InProcessClientFactory | null,
  opts: CertifyInProcessOptions = {},
): Promise<InProcessCertification> {
  const result = await certifyInProcess(factory, opts);
  if (!result.ok) throw new Error(`jobproof: the client is not certified:\n${result.summary}`);
  return result;
}
