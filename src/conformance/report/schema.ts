import { z } from 'zod';
import { CaseVerdictSchema } from '../outcome.js';

/**
 * The JSON report of `certify --report json=…`: one structure for catalog scenarios, random schedules and task
 * scenarios, one verdict vocabulary, one pass rule. Other tools read it (the HTML report, `report merge`), so it is
 * versioned by `format` and only ever extended: a field is never renamed or given another meaning.
 */
export const REPORT_FORMAT = 'jobproof-certification/1';
export const PASS_RULE = 'no case failed and at least one passed';

/** Per invariant in one case: held, broken, or nothing to judge. Job invariants I1–I15, task invariants T1–T5. */
export const InvariantCellSchema = z.enum(['held', 'broken', 'not_applicable']);

export const CaseKindSchema = z.enum([
  'scenario', // a catalog scenario (or --scenario-file)
  'schedules', // the random fault schedules of one property run, as one case
  'task', // a task scenario (tasks-api.md)
]);

export const ReportCaseSchema = z.object({
  kind: CaseKindSchema,
  name: z.string(),
  verdict: CaseVerdictSchema,
  /** Why, for every verdict but pass (e.g. `client does not listen for webhooks`). */
  reason: z.string().nullable(),
  /** One readable line per broken promise: invariant, operation, what went wrong. */
  failures: z.array(z.string()),
  /** Invariant id → cell; empty for a case that did not run. */
  invariants: z.record(z.string(), InvariantCellSchema),
  time_bound_hit: z.boolean(),
  /** Run-clock time (virtual in-process), null when the case did not run. */
  run_ms: z.number().nullable(),
  wall_ms: z.number(),
  /** What a person needs when a run goes wrong (client stderr, …). */
  diagnostics: z.array(z.string()),
  /** For `schedules`: how many ran, their seed, the verdict counts, and the shrunk failure if any. */
  schedules: z
    .object({
      runs: z.number().int(),
      seed: z.number().int(),
      verdicts: z.partialRecord(CaseVerdictSchema, z.number().int()),
      path: z.string().nullable(),
      shrinks: z.number().int().nullable(),
      /** The minimal failing schedule as a scenario (`certify --scenario-file` replays it). */
      counterexample: z.unknown().nullable(),
      /** Schedules asked for (`--runs`), the same in every shard of one certification. */
      planned: z.number().int().optional(),
      /** Schedules actually run here (a shard runs its part of the seeded sequence; merged: all shards together). */
      executed: z.number().int().optional(),
    })
    .nullable(),
  /** A scenario's place in the whole chosen catalog (0-based), so `report merge` can restore the order. */
  position: z.number().int().min(0).optional(),
});

export const TimeScaleSchema = z.object({
  factor: z.number().positive(),
  /** calibrated: measured before the catalog; flag: --time-scale; virtual: in-process runs on a virtual clock. */
  source: z.enum(['calibrated', 'flag', 'virtual']),
  client_start_ms: z.number().nullable(),
  provider_round_trip_ms: z.number().nullable(),
});

export const CertificationReportSchema = z.object({
  format: z.literal(REPORT_FORMAT),
  passed: z.boolean(),
  pass_rule: z.literal(PASS_RULE),
  version: z.string(),
  client: z.string(),
  runner: z.enum(['process', 'in-process']),
  seed: z.number().int(),
  started_at: z.string(),
  wall_ms: z.number(),
  time_scale: TimeScaleSchema,
  /** Whether the client declared it listens for webhooks (--webhooks); without, webhook-only scenarios are skipped. */
  webhooks: z.boolean(),
  /** The wire API the client spoke (`certify --dialect`, JOBPROOF_DIALECT); reports written before it are native. */
  dialect: z.enum(['native', 'openai', 'anthropic']).default('native'),
  /** The API profile the client spoke (`certify --profile`, profiles.md): its name, and the file or built-in it came from. */
  profile: z.object({ name: z.string(), source: z.string() }).optional(),
  counts: z.object(
    Object.fromEntries(CaseVerdictSchema.options.map((v) => [v, z.number().int()])) as Record<
      z.infer<typeof CaseVerdictSchema>,
      z.ZodNumber
    >,
  ),
  /** Across every case: broken anywhere → broken; else held somewhere → held; else not_applicable. */
  invariants: z.array(z.object({ id: z.string(), name: z.string(), status: InvariantCellSchema, broken_in: z.array(z.string()) })),
  cases: z.array(ReportCaseSchema),
  /** `certify --shard i/n`: this report is part i of n (`report merge` joins them). */
  shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).optional(),
  /** Set by `report merge`: the number of shard reports joined into this one. */
  merged_from: z.number().int().min(1).optional(),
});

export type ReportCase = z.infer<typeof ReportCaseSchema>;
export type TimeScale = z.infer<typeof TimeScaleSchema>;
export type CertificationReport = z.infer<typeof CertificationReportSchema>;
