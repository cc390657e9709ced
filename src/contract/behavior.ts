import { z } from 'zod';

/** How a job behaves once created. Fields left out take the defaults of provider-api.md. */
export const BehaviorSchema = z
  .object({
    mode: z.enum(['async', 'sync']).default('async'),
    duration_ms: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600 * 1000)
      .default(2000),
    outcome: z.enum(['succeeded', 'failed', 'expired', 'never']).default('succeeded'),
    items: z.number().int().min(0).max(100_000).default(10),
    items_failed: z.number().int().min(0).max(100_000).default(0),
    commit_point: z.number().min(0).max(1).default(0.8),
    one_shot_results: z.boolean().default(false),
    corrupt_digest: z.boolean().default(false),
    error_row: z.boolean().default(false),
    progress_lies: z.boolean().default(false),
    cancel: z.enum(['honour', 'ignore']).default('honour'),
    cancel_ms: z
      .number()
      .int()
      .min(0)
      .max(24 * 3600 * 1000)
      .default(200),
    /** Extension: results expire this long after the job succeeded (410 `results_gone`); null keeps them. */
    results_ttl_ms: z.number().int().min(0).nullable().default(null),
  })
  .strict()
  .refine((b) => b.items_failed <= b.items, { message: 'items_failed must not exceed items', path: ['items_failed'] });

export type Behavior = z.output<typeof BehaviorSchema>;
export type BehaviorInput = z.input<typeof BehaviorSchema>;

export const BehaviorConfigSchema = z
  .object({
    default: BehaviorSchema.optional(),
    by_kind: z.record(z.string(), BehaviorSchema).optional(),
  })
  .strict();
export type BehaviorConfigInput = z.input<typeof BehaviorConfigSchema>;

export interface BehaviorConfig {
  default: Behavior;
  by_kind: Record<string, Behavior>;
}

export const defaultBehavior: Behavior = BehaviorSchema.parse({});

export function behaviorFor(config: BehaviorConfig, kind: string): Behavior {
  return config.by_kind[kind] ?? config.default;
}

export function parseBehaviorConfig(input: unknown): BehaviorConfig {
  const parsed = BehaviorConfigSchema.parse(input);
  return { default: parsed.default ?? defaultBehavior, by_kind: parsed.by_kind ?? {} };
}
