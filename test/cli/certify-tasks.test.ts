/**
 * `certify --tasks --client CMD` drives CMD through the task scenarios as child processes: the Python example passes
 * (exit 0), the same client with one mistake (it applies without approval) fails with T2 (exit 1). Times are scaled
 * by 0.25 (`--time-scale`) so the file takes seconds; spawns `dist/cli/main.js` (run `npm run build` first).
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'main.js');
const python = (() => {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
})();

function certify(client: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [CLI, 'certify', '--tasks', '--scenarios', 'none', '--time-scale', '0.25', '--parallel', '6', '--client', client],
      { cwd: REPO },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe.skipIf(!python)('certify --tasks --client drives the given command', () => {
  const good = certify(`${python} examples/python-client/client.py`);
  const bad = certify(`${python} test/conformance/tasks/fixtures/py_apply_without_approval.py`);

  it('examples/python-client passes every task scenario (exit 0)', { timeout: 120_000 }, async () => {
    const r = await good;
    expect(r.out).toContain('as processes: task submit/work/show');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^PASSED: \d+ pass, 0 fail/m);
    expect(r.out).not.toMatch(/ FAIL /);
  });

  it('a Python task client that applies without approval is not certified (exit 1), caught by T2', { timeout: 120_000 }, async () => {
    const r = await bad;
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/no-approval-yet +FAIL .*broken: T2/);
    expect(r.out).toMatch(/T2 no-apply-without-approval — task task_\w+: apply \(seq \d+\) sent with no approval/);
    expect(r.out).toMatch(/^FAILED/m);
  });
});
