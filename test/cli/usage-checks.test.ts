/**
 * Usage errors of flags that need each other and of a tokens file the provider cannot honour: exit 2 with a
 * message that says what to do (spawned `dist/cli/main.js`; run `npm run build` first).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'jobproof-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });

describe('flags and files that cannot work are usage errors (exit 2)', () => {
  it('certify --path without --seed', () => {
    const r = run('certify', '--scenarios', 'none', '--runs', '1', '--path', '0:1');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--path .*--seed/);
  });

  it('certify --lanes without --in-process', () => {
    const r = run('certify', '--scenarios', 'none', '--runs', '1', '--lanes', '2');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--lanes .*--in-process/);
  });

  it('serve --tokens whose tenant has no webhook secret is refused before listening', () => {
    const file = join(dir, 'tokens.json');
    writeFileSync(
      file,
      JSON.stringify({
        tokens: {
          'i-token': { tenant: 'initech', subject: 'a', roles: ['submitter'] },
          'dev-token': { tenant: 'acme', subject: 'b', roles: [] },
        },
      }),
    );
    const r = run('serve', '--port', '0', '--db', ':memory:', '--tokens', file);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no webhook secret for tenant 'initech'");
    expect(r.stderr).toContain('"webhook_secrets"');
    expect(r.stdout).not.toContain('listening');
  });
});
