/**
 * Dialect tests: a provider on a virtual clock served over real HTTP on loopback, and the official SDKs pointed at it.
 * Time moves only when a test says so, so no test sleeps and a batch's state is known at every step.
 */
import { VirtualClock } from '../../../src/lib/clock.js';
import type { ProviderOptions } from '../../../src/fake-provider/index.js';
import { startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';

export interface DialectServer extends ProviderServer {
  clock: VirtualClock;
  /** Move the provider's clock forward, firing its timers (job steps, webhook attempts). */
  advance(ms: number): Promise<void>;
}

export async function startDialectServer(opts: ProviderOptions = {}): Promise<DialectServer> {
  const clock = new VirtualClock(Date.now());
  const ps = await startProviderServer({ clock, ...opts });
  return { ...ps, clock, advance: (ms) => clock.advance(ms) };
}

/** One OpenAI batch input line per custom id, for `/v1/chat/completions`. */
export function openaiJsonl(ids: string[], url = '/v1/chat/completions'): string {
  return (
    ids
      .map((custom_id) =>
        JSON.stringify({
          custom_id,
          method: 'POST',
          url,
          body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${custom_id}` }] },
        }),
      )
      .join('\n') + '\n'
  );
}

export function anthropicRequests(
  ids: string[],
): Array<{ custom_id: string; params: { model: string; max_tokens: number; messages: Array<{ role: 'user'; content: string }> } }> {
  return ids.map((custom_id) => ({
    custom_id,
    params: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: `hi ${custom_id}` }] },
  }));
}

export function ids(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
}

export function parseJsonl(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}
