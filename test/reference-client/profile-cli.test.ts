import { spawnSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { op, profileOf, startProfileRig, type ProfileRig } from './wire/profile-rig.js';

/**
 * `jobproof client` speaking a profile as a process (the bundle certify runs): JOBPROOF_DIALECT names a built-in
 * profile or a profile file, `--profile` does the same; a profile that does not check is refused with exit 2 and
 * its located problems before any request. Needs `npm run build` first.
 */
const BUNDLE = fileURLToPath(new URL('../../dist/cli/client.cjs', import.meta.url));
let rig: ProfileRig;
beforeAll(async () => {
  rig = await startProfileRig(['google-lro', 'replicate'].map(profileOf));
  await rig.behave({ duration_ms: 300, items: 2 });
});
afterAll(() => rig.close());

function client(args: string[], env: Record<string, string>, input?: unknown) {
  return spawnSync(process.execPath, [BUNDLE, 'client', ...args], {
    env: { ...process.env, JOBPROOF_PROVIDER_URL: rig.server.url, JOBPROOF_TOKEN: 'dev-token', ...env },
    input: input === undefined ? undefined : JSON.stringify(input),
    encoding: 'utf8',
  });
}

function work(args: string[], env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, [BUNDLE, 'client', ...args, 'work'], {
    env: { ...process.env, JOBPROOF_PROVIDER_URL: rig.server.url, JOBPROOF_TOKEN: 'dev-token', ...env },
    stdio: 'ignore',
  });
  return new Promise((resolve) => child.once('exit', resolve));
}

describe('jobproof client with a profile', () => {
  it.each([
    ['JOBPROOF_DIALECT=google-lro', 'google-lro', [] as string[]],
    ['--profile replicate', 'replicate', ['--profile', 'replicate']],
  ])('%s: submit, work and show through processes', { timeout: 60_000 }, async (_label, name, flags) => {
    const t = tempDir('jp-profile-cli-');
    const env = { JOBPROOF_STATE: t.dir, ...(flags.length ? {} : { JOBPROOF_DIALECT: name }) };
    const p = profileOf(name);
    const sub = client([...flags, 'submit'], env, op(p, `cli-${name}`));
    expect(sub.status, sub.stderr).toBe(0);
    expect(await work(flags, env)).toBe(0);
    const show = client([...flags, 'show', `cli-${name}`], env);
    expect(show.status, show.stderr).toBe(0);
    const rec = JSON.parse(show.stdout);
    expect(rec.state).toBe('succeeded');
    expect(rec.result).toMatchObject({ items_total: 2 });
    // client-protocol.md: a profile without keys shows none.
    expect(rec.idempotency_key).toEqual(p.idempotency.source === 'none' ? null : expect.stringMatching(/^idem_/));
    const mine = rig.requests(p).filter((e) => e.trace_id === rec.trace_id);
    expect(mine.filter((e) => e.route === 'create' && e.effect === 'created')).toHaveLength(1);
    t.cleanup();
  });

  it('refuses a profile that does not check with exit 2, naming where, before any request', () => {
    const t = tempDir('jp-profile-cli-');
    const file = join(t.dir, 'broken.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(JSON.stringify(profileOf('replicate'))), surprise: true }, null, 2));
    const before = rig.server.provider.journal.all().length;
    for (const r of [
      client(['show', 'op_x'], { JOBPROOF_STATE: t.dir, JOBPROOF_DIALECT: file }),
      client(['--profile', file, 'work'], { JOBPROOF_STATE: t.dir }),
    ]) {
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/broken\.json:\d+:\d+ .*surprise/);
    }
    expect(rig.server.provider.journal.all().length).toBe(before);
    const unknown = client(['show', 'op_x'], { JOBPROOF_STATE: t.dir, JOBPROOF_DIALECT: 'gemini' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/built-in profile \(azure-lro, gemini-batch, google-lro, native, replicate\)/);
    t.cleanup();
  });
});
