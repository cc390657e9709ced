/**
 * `jobproof serve` (a real process, dist/cli/main.js: run `npm run build` first) serves the dashboard by default and
 * prints its URL; `--no-dashboard` turns it off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'main.js');
const procs: ChildProcess[] = [];

async function serve(...flags: string[]): Promise<string> {
  if (!existsSync(CLI)) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', ':memory:', ...flags], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  let banner = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      banner += c.toString();
      if (banner.includes('Try:')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}): ${banner}`)));
  });
  return banner;
}
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGTERM');
});

describe('jobproof serve and the dashboard', () => {
  it('serves /_dashboard by default and prints its URL; the page is not journalled', async () => {
    const banner = await serve();
    const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
    expect(banner).toContain(`  dashboard: ${url}/_dashboard (changes need the control token)`);
    const page = await fetch(`${url}/_dashboard`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('jobproof dashboard');
    const journal = await (await fetch(`${url}/_control/journal`, { headers: { authorization: 'Bearer control-token' } })).json();
    expect(journal.data).toEqual([]);
  });

  it('--no-dashboard turns it off', async () => {
    const banner = await serve('--no-dashboard');
    const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
    expect(banner).toContain('  dashboard: off');
    expect((await fetch(`${url}/_dashboard`)).status).toBe(404);
  });
});
