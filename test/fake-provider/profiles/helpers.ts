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
