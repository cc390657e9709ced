import type { Profile } from '../../contract/profiles.js';
import type { Dialect, WireAdapter } from './adapter.js';
import { anthropicWire } from './anthropic.js';
import { nativeWire } from './native.js';
import { openaiWire } from './openai.js';
import { profileWire } from './profile.js';

export { DIALECTS, type Dialect, type WireAdapter } from './adapter.js';

/** The API a client speaks (`JOBPROOF_DIALECT`): a built-in dialect, or a profile (profiles.md) read and checked. */
export type WireChoice = { dialect: Dialect } | { profile: Profile };

/** The wire adapter for an API. */
export function wireFor(api: WireChoice, providerUrl: string): WireAdapter {
  if ('profile' in api) return profileWire(api.profile);
  const adapters: Record<Dialect, () => WireAdapter> = {
    native: () => nativeWire,
    openai: () => openaiWire,
    anthropic: () => anthropicWire(providerUrl),
  };
  return adapters[api.dialect]();
}
