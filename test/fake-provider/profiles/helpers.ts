/**
 * Profile tests: a provider serving built-in profiles on a virtual clock over real HTTP on loopback. Time moves only
 * when a test says so, so every job's state is known at each step and no test sleeps.
 */
import { loadProfile } from '../../../src/contract/profile-files.js';
import type { Profile } from '../../../src/contract/profiles.js';
import type { ProviderOptions } from '../../../src/fake-provider/index.js';
import { startDialectServer, type DialectServer } from '../dialects/helpers.js';

export function builtin(name: string): Profile {
  const l = loadProfile(name);
  if (!l.ok) throw new Error(`built-in profile ${name} does not load: ${JSON.stringify(l.problems)}`);
  return l.profile;
}

export function startProfileServer(names: string[], opts: ProviderOptions = {}): Promise<DialectServer> {
  return startDialectServer({ profiles: names.map(builtin), ...opts });
}

/** A create body each API takes, unique per call (its client reference). */
export function sampleBody(name: string, tag: string): Record<string, unknown> {
  switch (name) {
    case 'native':
      return { kind: 'report', input: { account: 'acct_1' }, client_ref: tag };
    case 'google-lro':
      return { request_id: tag, account: 'acct_1' };
    case 'gemini-batch':
      return {
        batch: {
          displayName: tag,
          model: 'models/gemini-2.5-flash',
          inputConfig: { requests: { requests: [{ request: { contents: [{ parts: [{ text: 'hi' }] }] }, metadata: { key: 'k1' } }] } },
        },
      };
    case 'azure-lro':
      return { clientReference: tag, account: 'acct_1' };
    default:
      return { version: 'v1', input: { prompt: tag } };
  }
}

export function authOf(p: Profile): { token?: string | null; headers: Record<string, string> } {
  if (p.auth.type === 'header') return { token: null, headers: { [p.auth.name]: 'dev-token' } };
  return { headers: {} };
}
