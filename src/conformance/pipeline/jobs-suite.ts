import { scaleScenarioTime, type Scenario } from '../../scenarios/index.js';
import { runCatalog, type ClientUnderTest } from '../catalog-run.js';
import type { ReportCase } from '../report/schema.js';
import type { ScenarioRun } from '../runner/run-scenario.js';
import { shardItems } from '../shard.js';
import { apiName } from '../dialect/capabilities.js';
import { forWebhooks, NO_WEBHOOKS, notApplicableIn, scenarioCase, skippedCase } from './cases.js';
import { head, progressLine } from './lines.js';
import type { CertificationPlan, JobsSuitePlan } from './plan.js';
import { certifySchedules } from './schedules.js';
import type { Suite, SuiteContext, SuiteResult } from './suite.js';

function jobsClient(plan: CertificationPlan, factor: number): ClientUnderTest {
  const c = plan.client;
  if (c.kind === 'process') return { kind: 'process', command: c.command, timeScale: factor, dialect: plan.dialect, profile: plan.profile };
  if (!c.jobs) throw new Error('the jobs suite needs an in-process job client factory');
  return { kind: 'in-process', factory: c.jobs, profile: plan.profile };
}

/**
 * The jobs suite: the catalog scenarios of this shard (each applicable in the dialect and to a client that does or
 * does not listen for webhooks, else a case that says why), then the seeded random fault schedules.
 */
export function jobsSuite(jobs: JobsSuitePlan): Suite {
  return {
    name: 'jobs',
    async run({ plan, timeScale, parallel, out }: SuiteContext): Promise<SuiteResult> {
      const factor = timeScale.factor;
      const client = jobsClient(plan, factor);
      const { webhooks, seed, shard } = plan;
      const api = plan.profile?.profile ?? plan.dialect;
      const dialect = apiName(api);
      // A shard runs catalog positions p with p mod n = i - 1 (positions counted in the whole chosen catalog).
      const picked = shardItems(jobs.scenarios, shard);
      const chosen = picked.map((x) => x.item);
      const cases: ReportCase[] = new Array(chosen.length);
      const toRun: Array<{ at: number; scenario: Scenario }> = [];
      chosen.forEach((s, at) => {
        const w = forWebhooks(s, webhooks);
        const na = notApplicableIn(api, s);
        if (na) cases[at] = skippedCase(s.name, `${dialect}: ${na}`, 'not_applicable');
        else if ('skip' in w) cases[at] = skippedCase(s.name, w.skip);
        else toRun.push({ at, scenario: scaleScenarioTime(w.run, factor) });
      });
      const skipped = cases.filter((c) => c?.verdict === 'skipped').length;
      const notApplicable = cases.filter((c) => c?.verdict === 'not_applicable').length;
      out(
        `runner: ${client.kind}; scenarios: ${toRun.length}${skipped ? ` (+${skipped} skipped: ${NO_WEBHOOKS})` : ''}${notApplicable ? ` (+${notApplicable} not applicable in ${dialect})` : ''}; random schedules: ${jobs.runs}; seed: ${seed}; webhooks: ${webhooks ? 'on' : 'off (polling only)'}${client.kind === 'process' ? `; parallel: ${parallel}` : ''}`,
      );
      if (shard) {
        out(
          `shard ${shard.index}/${shard.count}: catalog positions ${picked.map((x) => x.position + 1).join(', ') || 'none'}; random schedules ${shard.index}, ${shard.index + shard.count}, ${shard.index + 2 * shard.count}, … of the seeded sequence`,
        );
      }
      let shown = 0;
      chosen.forEach((s, i) => {
        if (cases[i]) out(`${head(++shown, chosen.length, s.name)} ${cases[i]!.verdict.replace('_', ' ')}: ${cases[i]!.reason}`);
      });
      const runs: ScenarioRun[] = await runCatalog(
        client,
        toRun.map((r) => r.scenario),
        { parallel, seed, onResult: (r) => out(progressLine(r, ++shown, chosen.length)) },
      );
      for (const [i, r] of runs.entries()) cases[toRun[i]!.at] = scenarioCase(r);
      for (const [k, x] of picked.entries()) cases[k] = { ...cases[k]!, position: x.position };
      // The HTML certificate draws each failing case from its run (the JSON report keeps no journal).
      const drawn = new Map(runs.map((r) => [r.scenario, r] as const));
      if (jobs.runs === 0) return { cases, runs, drawn };

      const module = plan.client.kind === 'in-process' ? plan.client.jobsModule : undefined;
      const r = await certifySchedules(
        {
          ...{ client, runs: jobs.runs, seed, shard, lanes: jobs.lanes, module, path: jobs.path, factor, webhooks },
          minimalOut: jobs.minimalOut,
          clientFlag: plan.clientFlag,
          shrinkBudgetMs: jobs.shrinkBudgetMs,
        },
        out,
      );
      if (r.counterexample) drawn.set(r.case.name, r.counterexample);
      return { cases: [...cases, r.case], runs, drawn, property: r.property, minimalOut: r.minimalOut };
    },
  };
}
