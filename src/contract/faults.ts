import { z } from 'zod';

export const REQUEST_ROUTES = [
  'create',
  'status',
  'list',
  'cancel',
  'results',
  'upload',
  'delete',
  'task_create',
  'task_read',
  'review',
  'apply',
] as const;
export const FAULT_ROUTES = [...REQUEST_ROUTES, 'webhook'] as const;
export type RequestRoute = (typeof REQUEST_ROUTES)[number];
export type FaultRoute = (typeof FAULT_ROUTES)[number];

/**
 * dialects.md names the read and find routes `read` and `find`; provider-api.md names them `status` and `list`.
 * Both spellings name the same route, so one rule covers a native poll and a dialect's poll alike.
 */
export const ROUTE_ALIASES: Readonly<Record<string, FaultRoute>> = { read: 'status', find: 'list' };

const retryAfter = z.number().int().min(0).max(3600);

/** Every fault in one discriminated union, so an unknown `type` is reported at `fault.type`. */
export const FaultSchema = z.preprocess(
  // The bare form `"fault": "drop"` is accepted as `{"type": "drop"}`.
  (v) => (typeof v === 'string' ? { type: v } : v),
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('lose_response'), mode: z.enum(['reset', 'hang']).default('reset') }).strict(),
    z
      .object({
        type: z.literal('fail_before_commit'),
        status: z.union([z.literal(500), z.literal(502), z.literal(503)]).default(503),
        retry_after: retryAfter.optional(),
      })
      .strict(),
    z.object({ type: z.literal('rate_limit'), retry_after: retryAfter.default(1) }).strict(),
    z.object({ type: z.literal('error_after_commit') }).strict(),
    z.object({ type: z.literal('delay'), ms: z.number().int().min(0).max(3_600_000) }).strict(),
    z.object({ type: z.literal('foreign_job_id') }).strict(),
    z.object({ type: z.literal('duplicate'), copies: z.number().int().min(1).max(10).default(1) }).strict(),
    z.object({ type: z.literal('reorder') }).strict(),
    z.object({ type: z.literal('drop') }).strict(),
    // Beside the real event, a delivery the provider never made, claiming the job reached `claim`: unsigned, or
    // signed with a secret that is not the tenant's. A client must never act on it.
    z
      .object({
        type: z.literal('forge'),
        signature: z.enum(['none', 'wrong_secret']).default('none'),
        claim: z.enum(['succeeded', 'failed', 'cancelled', 'expired']).default('failed'),
      })
      .strict(),
  ]),
);

export type Fault = z.output<typeof FaultSchema>;
export type FaultType = Fault['type'];
export const REQUEST_FAULTS = [
  'lose_response',
  'fail_before_commit',
  'rate_limit',
  'error_after_commit',
  'delay',
  'foreign_job_id',
] as const;
export const WEBHOOK_FAULTS = ['duplicate', 'reorder', 'drop', 'delay', 'forge'] as const;
/** The fault vocabulary: every `type` a rule may fire, as the journal records it (`delay` serves both). */
export const FAULT_TYPES = [...REQUEST_FAULTS, 'duplicate', 'reorder', 'drop', 'forge'] as const satisfies readonly FaultType[];
export const FaultTypeSchema = z.enum(FAULT_TYPES);
// Every fault the union knows is in the vocabulary: a new fault shape without a name here fails to compile.
const _everyFaultNamed: readonly (typeof FAULT_TYPES)[number][] = [] as FaultType[];
void _everyFaultNamed;
export type RequestFault = Extract<Fault, { type: (typeof REQUEST_FAULTS)[number] }>;
export type WebhookFault = Extract<Fault, { type: (typeof WEBHOOK_FAULTS)[number] }>;

const nth = z.union([z.number().int().min(1), z.array(z.number().int().min(1)).min(1)]);

export const FaultRuleSchema = z
  .object({
    id: z.string().min(1).max(100).optional(),
    on: z.union([z.enum(FAULT_ROUTES), z.enum(['read', 'find'])]).transform((v): FaultRoute => ROUTE_ALIASES[v] ?? (v as FaultRoute)),
    nth: nth.optional(),
    probability: z.number().min(0).max(1).optional(),
    times: z.number().int().min(1).optional(),
    fault: FaultSchema,
  })
  .strict()
  .superRefine((rule, ctx) => {
    const forWebhook = rule.on === 'webhook';
    const allowed: readonly string[] = forWebhook ? WEBHOOK_FAULTS : REQUEST_FAULTS;
    const ok = allowed.includes(rule.fault.type);
    if (!ok) {
      ctx.addIssue({
        code: 'custom',
        path: ['fault', 'type'],
        message: forWebhook
          ? `fault '${rule.fault.type}' does not apply to webhooks (duplicate, reorder, drop, delay, forge)`
          : `fault '${rule.fault.type}' does not apply to requests (lose_response, fail_before_commit, rate_limit, error_after_commit, delay, foreign_job_id)`,
      });
    }
    // On a find (`list`), the answer names a foreign job next to the one the key created: the lookup path of the
    // same contract violation (a client that reconciles by lookup never replays its create).
    if (rule.fault.type === 'foreign_job_id' && rule.on !== 'create' && rule.on !== 'list') {
      ctx.addIssue({ code: 'custom', path: ['on'], message: "foreign_job_id applies to 'create' and 'list' only" });
    }
  });

export const FaultPlanSchema = z
  .object({
    seed: z.number().int().default(0),
    rules: z.array(FaultRuleSchema).max(1000).default([]),
  })
  .strict();

export type FaultRule = z.output<typeof FaultRuleSchema>;
export type FaultPlan = z.output<typeof FaultPlanSchema>;
export type FaultPlanInput = z.input<typeof FaultPlanSchema>;
