import type { Dialect, WireAdapter } from './adapter.js';
import { anthropicWire } from './anthropic.js';
import { openaiWire } from './openai.js';

export { DIALECTS, type Dialect, type WireAdapter } from './adapter.js';

/** The wire adapter for a dialect; `null` for native, which the steps speak themselves. */
export function wireFor(dialect: Dialect, providerUrl: string): WireAdapter | null {
  if (dialect === 'openai') return openaiWire;
  if (dialect === 'anthropic') return anthropicWire(providerUrl);
  return null;
}
