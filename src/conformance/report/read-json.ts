import { z } from 'zod';
import { parseScenario } from '../../scenarios/index.js';
import { InvariantResultSchema } from '../checker/index.js';
import type { ScenarioRun } from '../runner/run-scenario.js';
import type { Certification } from './summary.js';

/** What `report merge` reads back from a `--report json=…` file (the fields toJson writes that writers need). */
const RunJsonSchema = z.object({
  scenario: z.string(),
  verdict_ok: z.boolean().optional(),
  timed_out: z.boolean(),
  vacuous: z.boolean(),
  run_ms: z.number(),
  wall_ms: z.number(),
  invariants: z.array(InvariantResultSchema),
  diagnostics: z.array(z.string()),
});

export const CertificationJsonSchema = z.object({
  version: z.string(),
  client: z.string(),
  runner: z.enum(['process', 'in-process']),
  seed: z.number().int(),
  started_at: z.string(),
  wall_ms: z.number(),
  shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).optional(),
  scenarios: z.array(RunJsonSchema.extend({ position: z.number().int().min(0).optional() })),
  property: z
    .object({
      runs: z.number().int(),
      planned: z.number().int().optional(),
      executed: z.number().int().optional(),
      seed: z.number().int(),
      failed: z.boolean(),
      path: z.string().optional(),
      shrinks: z.number().int().optional(),
      wall_ms: z.number(),
      counterexample: z.object({ scenario: z.unknown(), run: RunJsonSchema.optional(), invariants: z.array(InvariantResultSchema) }).optional(),
    })
    .optional(),
});

type RunJson = z.infer<typeof RunJsonSchema>;

function toRun(r: RunJson): ScenarioRun {
  const ok = r.verdict_ok ?? r.invariants.every((i) => i.status !== 'broken');
  // The evidence (journal, records) is not in the JSON report; no report writer reads it.
  return { scenario: r.scenario, verdict: { ok, invariants: r.invariants }, evidence: undefined as never, timedOut: r.timed_out, vacuous: r.vacuous, runMs: r.run_ms, wallMs: r.wall_ms, diagnostics: r.diagnostics };
}

/** A JSON certificate back into the form report writers take; throws a readable error on anything else. */
export function certificationFromJson(value: unknown, source: string): Certification {
  const parsed = CertificationJsonSchema.safeParse(value);
  if (!parsed.success) throw new Error(`${source} is not a jobproof JSON report (certify --report json=…): ${z.prettifyError(parsed.error)}`);
  const j = parsed.data;
  const p = j.property;
  const ce = p?.counterexample;
  return {
    version: j.version, client: j.client, runner: j.runner, seed: j.seed, startedAt: j.started_at, wallMs: j.wall_ms,
    scenarios: j.scenarios.map(toRun),
    shard: j.shard && { ...j.shard, positions: j.scenarios.map((s, k) => s.position ?? k) },
    property: p && {
      runs: p.runs, planned: p.planned, executed: p.executed, seed: p.seed, failed: p.failed, path: p.path, numShrinks: p.shrinks, wallMs: p.wall_ms,
      counterexample: ce && {
        scenario: parseScenario(ce.scenario),
        run: toRun(ce.run ?? { scenario: 'minimal-failure', timed_out: false, vacuous: false, run_ms: 0, wall_ms: 0, invariants: ce.invariants, diagnostics: [] }),
      },
    },
  };
}
