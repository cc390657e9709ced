/**
 * The reference client driving a profile: the fake provider serving every built-in profile (and the seed's reports
 * example) over real HTTP on loopback, and a client speaking one of them through the generic profile adapter, both
 * on real time with jobs of a few hundred milliseconds. Tests wait on the client's record, never sleep.
 */
import { join } from 'node:path';
import type { SubmitInput } from '../../../src/contract/client-protocol.js';
import type { RequestEntry } from '../../../src/contract/journal.js';
import { loadProfile } from '../../../src/contract/profile-files.js';
import type { Profile } from '../../../src/contract/profiles.js';
import { realClock } from '../../../src/lib/clock.js';
import { ReferenceClient } from '../../../src/reference-client/client.js';
import { startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';
import { tempDir } from '../helpers.js';

export const REPORTS_FILE = join(import.meta.dirname, '..', '..', '..', 'examples', 'profiles', 'reports.json');
/** Every built-in profile, and the seed's example by its file. */
export const PROFILES = ['native', 'google-lro', 'gemini-batch', 'azure-lro', 'replicate', REPORTS_FILE];

export function profileOf(nameOrFile: string): Profile {
  const l = loadProfile(nameOrFile);
  if (!l.ok) throw new Error(`profile ${nameOrFile} does not load: ${JSON.stringify(l.problems)}`);
  return l.profile;
}

/** `submit`'s input: the request body each API takes, unique per operation where the API echoes it. */
export function inputFor(p: Profile, opId: string): Record<string, unknown> {
  switch (p.name) {
    case 'native':
      return { kind: 'report', input: { account: 'acct_1' } };
    case 'gemini-batch':
      return {
        batch: {
          model: 'models/gemini-2.5-flash',
          input_config: { requests: { requests: [{ request: { contents: [{ parts: [{ text: opId }] }] } }] } },
        },
      };
    case 'replicate':
      return { version: 'v1', input: { prompt: `summarise ${opId}` } };
    case 'reports':
    case 'reports-no-cancel':
    case 'reports-no-key':
    case 'reports-named':
      return { account: 'acct_1', range: '2026-11', format: 'csv' };
    default:
      return { account: 'acct_1' };
  }
}

export function op(p: Profile, id: string, over: Partial<SubmitInput> = {}): SubmitInput {
  return { operation_id: id, kind: 'report', input: inputFor(p, id), create_deadline_ms: 20_000, result_deadline_ms: 30_000, ...over };
}

export interface ProfileRig {
  server: ProviderServer;
  client(p: Profile, workerId?: string): ReferenceClient;
  /** The journal's requests in one profile (by its prefix: the journal records no dialect for `native`). */
  requests(p: Profile): RequestEntry[];
  /** A default behaviour for every job from now on. */
  behave(b: Record<string, unknown>): Promise<void>;
  faults(rules: unknown[]): Promise<void>;
  close(): Promise<void>;
}

export async function startProfileRig(profiles: Profile[] = PROFILES.map(profileOf)): Promise<ProfileRig> {
  const server = await startProviderServer({ profiles, pollAdviceSeconds: 0 });
  const dirs: { cleanup(): void }[] = [];
  const clients: ReferenceClient[] = [];
  const put = async (path: string, body: unknown) => {
    const r = await server.control('PUT', path, { body });
    if (r.status !== 200) throw new Error(`PUT ${path}: ${r.status} ${r.text}`);
  };
  return {
    server,
    client(p, workerId = 'worker-1') {
      const t = tempDir('jp-profile-');
      dirs.push(t);
      const c = new ReferenceClient({
        fetch: (...a) => globalThis.fetch(...a),
        clock: realClock,
        providerUrl: server.url,
        token: 'dev-token',
        workerId,
        leaseMs: 5000,
        state: t.dir,
        api: { profile: p },
      });
      clients.push(c);
      return c;
    },
    requests: (p) =>
      server.provider.journal.all().filter((e): e is RequestEntry => e.type === 'request' && e.path.startsWith(`${p.prefix}/`)),
    behave: (b) => put('/_control/behavior', { default: b }),
    faults: (rules) => put('/_control/faults', { rules }),
    async close() {
      for (const c of clients) await c.close();
      await server.stop();
      for (const d of dirs) d.cleanup();
    },
  };
}

/** Run a worker until every operation of the client is final. */
export async function workOut(c: ReferenceClient): Promise<void> {
  await c.work({ signal: new AbortController().signal });
}
