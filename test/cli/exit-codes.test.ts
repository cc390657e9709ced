import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built CLI (npm run build first), spawned as a user would: the exit code is the contract CI scripts rely on.
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const state = mkdtempSync(join(tmpdir(), 'jobproof-exit-'));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, JOBPROOF_STATE: state },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const COMMANDS = ['certify', 'serve', 'scenarios', 'client', 'client submit', 'client show', 'client work', 'verify-provider'];

describe('exit codes of dist/cli/main.js: 0 success, 1 not certified / failed, 2 usage error', () => {
  it.each(COMMANDS)('`%s --help` prints its help and exits 0', async (cmd) => {
    const r = await run([...cmd.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: jobproof ${cmd}`);
  });

  it.each([
    ['an unknown command', ['bogus']],
    ['no command at all', []],
    ['an unknown flag on certify', ['certify', '--bogus']],
    ['an unknown flag on serve', ['serve', '--bogus']],
    ['an unknown flag on scenarios', ['scenarios', '--bogus']],
    ['an unknown flag on verify-provider', ['verify-provider', '--url', 'http://127.0.0.1:1', '--token', 't', '--bogus']],
    ['an unknown client verb', ['client', 'bogus']],
    ['a missing required option', ['verify-provider']],
    ['a missing argument', ['client', 'show']],
    ['a bad value', ['certify', '--runs', 'x']],
    ['a bad time scale', ['certify', '--time-scale', 'fast']],
    ['a bad report spec', ['certify', '--report', 'pdf=x']],
    ['an unknown scenario', ['certify', '--scenarios', 'no-such-scenario']],
    ['an unreadable scenario file', ['certify', '--scenario-file', '/nonexistent/jobproof.json']],
    ['an empty certification', ['certify', '--scenarios', 'none', '--runs', '0']],
    ['--path without --seed', ['certify', '--scenarios', 'none', '--runs', '1', '--path', '0:1']],
    ['a bad port', ['serve', '--port', 'x']],
    ['an unreadable tokens file', ['serve', '--tokens', '/nonexistent/tokens.json']],
    ['an unknown scenario to print', ['scenarios', 'no-such-scenario']],
    ['a bad URL', ['verify-provider', '--url', 'not a url', '--token', 't']],
  ])('%s exits 2 with a message on stderr', async (_what, args) => {
    const r = await run(args);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr.trim()).not.toBe('');
  });

  it('--version exits 0', async () => {
    const r = await run(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
