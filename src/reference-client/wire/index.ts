import type { Dialect, WireAdapter } from './adapter.js';
import { anthropicWire } from './anthropic.js';
import { nativeWire } from './native.js';
import { openaiWire } from './openai.js';

export { DIALECTS, type Dialect, type WireAdapter } from './adapter.js';

/** The wire adapter for an API (`JOBPROOF_DIALECT`). */
export function wireFor(dialect: Dialect, providerUrl: string): WireAdapter {
  const adapters: Record<Dialect, () => WireAdapter> = {
    native: () => nativeWire,
    openai: () => openaiWire,
    anthropic: () => anthropicWire(providerUrl),
  };
  return adapters[dialect]();
}
