import { z } from 'zod';

export const RoleSchema = z.enum(['submitter', 'reviewer']);
export const PrincipalSchema = z.object({
  tenant: z.string().min(1).max(100),
  subject: z.string().min(1).max(100),
  roles: z.array(RoleSchema).default([]),
});
export type Principal = z.output<typeof PrincipalSchema>;

/** The `--tokens FILE` format; every part optional, defaults from provider-api.md. */
export const TokensConfigSchema = z
  .object({
    tokens: z.record(z.string().min(1), PrincipalSchema).optional(),
    control_token: z.string().min(1).optional(),
    webhook_secrets: z.record(z.string(), z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/)).optional(),
  })
  .strict();
export type TokensConfigInput = z.input<typeof TokensConfigSchema>;

export interface TokensConfig {
  tokens: Record<string, Principal>;
  control_token: string;
  webhook_secrets: Record<string, string>;
}

export const DEFAULT_TOKENS: Record<string, Principal> = {
  'dev-token': { tenant: 'acme', subject: 'agent-1', roles: ['submitter'] },
  'dev-token-2': { tenant: 'acme', subject: 'agent-2', roles: ['submitter'] },
  'other-tenant-token': { tenant: 'globex', subject: 'agent-9', roles: ['submitter'] },
  'reviewer-token': { tenant: 'acme', subject: 'reviewer-1', roles: ['reviewer'] },
};

export const DEFAULT_WEBHOOK_SECRETS: Record<string, string> = {
  acme: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  globex: 'whsec_Z2xvYmV4LWRldi13ZWJob29rLXNlY3JldA==',
};

export function resolveTokensConfig(input: TokensConfigInput = {}): TokensConfig {
  const parsed = TokensConfigSchema.parse(input);
  return {
    tokens: parsed.tokens ?? DEFAULT_TOKENS,
    control_token: parsed.control_token ?? 'control-token',
    webhook_secrets: { ...DEFAULT_WEBHOOK_SECRETS, ...parsed.webhook_secrets },
  };
}
