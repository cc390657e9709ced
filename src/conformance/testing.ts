import type { InProcessClientFactory } from '../contract/client-protocol.js';
import { catalog, getScenario, type Scenario } from '../scenarios/index.js';
import { runCatalog } from './catalog-run.js';
import { propertyRun, type PropertyRunResult } from './property-run.js';
import { failureLines } from './report/summary.js';
import type { ScenarioRun } from './runner/run-scenario.js';

export interface CertifyInProcessOptions {
  /** Catalog scenarios to run: 'all' (default) or names. */
  scenarios?: 'all' | string[];
  /** Random fault schedules after the catalog (default 50). */
  runs?: number;
  /** Seed of the random schedules; fixed by default so a test suite is reproducible. */
  seed?: number;
  /** Whether the client listens for webhooks (default true). */
  webhooks?: boolean;
}

export interface InProcessCertification {
  ok: boolean;
  scenarios: ScenarioRun[];
  property?: PropertyRunResult;
  /** A readable account of every failure, with the seed to replay it. */
  summary: string;
}

/**
 * Certify a TypeScript client inside your own test suite, on a virtual clock, seeded:
 *
 *   it('survives the jobproof catalog', async () => {
 *     await expectCertified(myClientFactory, { runs: 100 });
 *   });
 */
export async function certifyInProcess(
  factory: InProcessClientFactory,
  opts: CertifyInProcessOptions = {},
): Promise<InProcessCertification> {
  const seed = opts.seed ?? 20261129;
  const chosen: Scenario[] = opts.scenarios === undefined || opts.scenarios === 'all' ? [...catalog] : opts.scenarios.map(getScenario);
  const scenarios = chosen.map((s) => ({ ...s, webhooks: s.webhooks && (opts.webhooks ?? true) }));
  const client = { kind: 'in-process' as const, factory };
  const runs = await runCatalog(client, scenarios, { seed });
  // Random schedules never switch webhooks on for a client that does not listen (the same rule as certify).
  const prepare = opts.webhooks === false ? (s: Scenario) => ({ ...s, webhooks: false }) : undefined;
  const property = (opts.runs ?? 50) > 0 ? await propertyRun(client, { runs: opts.runs ?? 50, seed, prepare }) : undefined;
  const lines: string[] = [];
  for (const r of runs) for (const l of failureLines(r)) lines.push(`${r.scenario}: ${l}`);
  if (property?.failed && property.counterexample) {
    lines.push(`property run failed (seed ${property.seed}, path ${property.path}); minimal schedule:`);
    for (const l of failureLines(property.counterexample.run)) lines.push(`  ${l}`);
    lines.push(JSON.stringify(property.counterexample.scenario));
  }
  const ok = lines.length === 0;
  return {
    ok,
    scenarios: runs,
    property,
    summary: ok ? `certified: ${runs.length} scenarios, ${property?.runs ?? 0} random schedules (seed ${seed})` : lines.join('\n'),
  };
}

/** Throws an Error listing every broken invariant (works with vitest, jest, node:test, mocha). */
export async function expectCertified(
  factory: InProcessClientFactory,
  opts: CertifyInProcessOptions = {},
): Promise<InProcessCertification> {
  const result = await certifyInProcess(factory, opts);
  if (!result.ok) throw new Error(`jobproof: the client is not certified:\n${result.summary}`);
  return result;
}
