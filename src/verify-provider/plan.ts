import { z } from 'zod';

/**
 * The pilot plan (`verify-provider --plan pilot.json`): what the process owner lists before a pilot check (seed
 * article 004): who is who (tokens with tenants and roles), the object to draft against, how to change that object,
 * and the answers expected where tasks-api.md allows more than one. Real providers have no control API: everything
 * verify-provider would otherwise learn or arrange through it comes from here.
 */
const TokenSchema = z
  .object({
    /** The bearer token itself, or `token_env`: the name of an environment variable holding it (keep secrets out of files). */
    token: z.string().min(1).optional(),
    token_env: z.string().min(1).optional(),
    tenant: z.string().min(1),
    subject: z.string().min(1),
    roles: z.array(z.enum(['submitter', 'reviewer'])),
  })
  .strict()
  .refine((t) => (t.token === undefined) !== (t.token_env === undefined), { message: 'give exactly one of token, token_env' });

const ChangeObjectSchema = z.union([
  z
    .object({
      /** Run through `/bin/sh -c`; JOBPROOF_OBJECT_REF and JOBPROOF_OBJECT_VERSION are set. Exit 0 when done. */
      command: z.string().min(1),
    })
    .strict(),
  z
    .object({
      /** A request that changes the object; `{ref}` in url or body is replaced by the object ref. */
      url: z.string().url(),
      method: z.enum(['POST', 'PUT', 'PATCH']).default('POST'),
      headers: z.record(z.string(), z.string()).default({}),
      body: z.unknown().optional(),
    })
    .strict(),
]);

export const PilotPlanSchema = z
  .object({
    /** Base URL of the provider (the --url flag overrides it). */
    url: z.string().url().optional(),
    /** Which contracts the provider serves; checks of the other one are not run. */
    apis: z
      .array(z.enum(['jobs', 'tasks']))
      .min(1)
      .default(['jobs', 'tasks']),
    tokens: z.array(TokenSchema).min(1),
    /** Only for the fake provider or a staging double with the jobproof control API (fault checks need it). */
    control_token: z.string().min(1).optional(),
    /** The object every task check drafts against (its tenant is the first submitter's). */
    object: z
      .object({ ref: z.string().min(1).max(128), input: z.record(z.string(), z.unknown()).default({ changes: { status: 'reviewed' } }) })
      .strict()
      .optional(),
    /** How to change the object, for the stale-version checks. */
    change_object: ChangeObjectSchema.optional(),
    /** Per check: the answers the owner expects (e.g. ["409 stale_object_version"]); must be among those the spec allows. */
    expect: z.record(z.string(), z.array(z.string().regex(/^\d{3}( [a-z_]+)?$/)).min(1)).default({}),
    /**
     * The audit event type that records an application, where the owner knows it. Without it the application is
     * recognised by the apply Idempotency-Key it carries (tasks-api.md fixes no event names).
     */
    audit: z
      .object({ application_event: z.string().min(1).optional() })
      .strict()
      .default({}),
    timeout_ms: z.number().int().positive().optional(),
  })
  .strict();
export type PilotPlan = z.output<typeof PilotPlanSchema>;

export interface PlanToken {
  token: string;
  tenant: string;
  subject: string;
  roles: string[];
}

/** The tokens the checks need, picked from the plan by tenant and role. */
export interface PlanCast {
  token: string;
  token2?: string;
  reviewerToken?: string;
  otherTenantToken?: string;
  /** A subject of the first tenant holding both roles (for self_review_forbidden without a control API). */
  bothRolesToken?: string;
  tenantOf: Map<string, string>;
}

export function resolveTokens(plan: PilotPlan, env: NodeJS.ProcessEnv = process.env): PlanToken[] {
  return plan.tokens.map((t, i) => {
    const token = t.token ?? env[t.token_env!];
    if (!token) throw new Error(`plan tokens[${i}]: environment variable ${t.token_env} is not set`);
    return { token, tenant: t.tenant, subject: t.subject, roles: t.roles };
  });
}

export function castOf(tokens: PlanToken[]): PlanCast {
  const has = (t: PlanToken, r: string) => t.roles.includes(r);
  const main = tokens.find((t) => has(t, 'submitter') && !has(t, 'reviewer')) ?? tokens.find((t) => has(t, 'submitter'));
  if (!main) throw new Error('the plan names no token with the submitter role');
  const mine = tokens.filter((t) => t.tenant === main.tenant && t.token !== main.token);
  return {
    token: main.token,
    token2: mine.find((t) => has(t, 'submitter') && !has(t, 'reviewer') && t.subject !== main.subject)?.token,
    reviewerToken: (
      mine.find((t) => has(t, 'reviewer') && !has(t, 'submitter')) ?? mine.find((t) => has(t, 'reviewer') && t.subject !== main.subject)
    )?.token,
    otherTenantToken: tokens.find((t) => t.tenant !== main.tenant)?.token,
    bothRolesToken: [main, ...mine].find((t) => has(t, 'submitter') && has(t, 'reviewer'))?.token,
    tenantOf: new Map(tokens.map((t) => [t.token, t.tenant])),
  };
}

/** `409 stale_object_version` → matches an answer with that status and problem code; `202` → the status alone. */
export function answerMatches(spec: string, status: number, code: unknown): boolean {
  const [s, c] = spec.split(' ');
  return Number(s) === status && (c === undefined || c === code);
}

/** Plan expectations that name an unknown check or an answer the spec does not allow for it: a usage error each. */
export function planExpectationFaults(plan: PilotPlan, checks: ReadonlyArray<{ name: string; expects?: readonly string[] }>): string[] {
  const out: string[] = [];
  for (const [name, wanted] of Object.entries(plan.expect)) {
    const c = checks.find((x) => x.name === name);
    if (!c) out.push(`expect: no check named '${name}'`);
    else if (!c.expects) out.push(`expect: ${name} has no single answer to expect`);
    else
      for (const w of wanted)
        if (!c.expects.includes(w)) out.push(`expect: ${name} '${w}' is not an answer the spec allows (${c.expects.join(' or ')})`);
  }
  return out;
}
