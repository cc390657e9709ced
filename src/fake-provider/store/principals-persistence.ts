import type { Principal, TokensConfig } from '../../contract/principals.js';
import type { SettingsRepo } from './settings-repo.js';

const KEY = 'principals';

/**
 * The token table survives a restart on the same database, like tasks and objects: every replacement of
 * `tokens.tokens` (`PUT /_control/principals`, reset) is written to the settings table, and a provider reopened on
 * the file starts with the stored table. A table given explicitly at start (`--tokens`, `tokens.tokens`) replaces the
 * stored one, as a given behaviour config does.
 */
export function persistPrincipals(config: TokensConfig, settings: SettingsRepo, explicit: boolean): void {
  let table: Record<string, Principal> = config.tokens;
  const stored = explicit ? undefined : settings.get<Record<string, Principal>>(KEY);
  if (stored) table = stored;
  settings.put(KEY, table);
  Object.defineProperty(config, 'tokens', {
    enumerable: true,
    configurable: true,
    get: () => table,
    set: (next: Record<string, Principal>) => {
      table = next;
      settings.put(KEY, next);
    },
  });
}

/** Tenants that hold a token but have no webhook secret to sign their deliveries with. */
export function tenantsWithoutSecret(config: Pick<TokensConfig, 'tokens' | 'webhook_secrets'>): string[] {
  return [...new Set(Object.values(config.tokens).map((p) => p.tenant))].filter((t) => !config.webhook_secrets[t]).sort();
}
