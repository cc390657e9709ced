/**
 * `jobproof profile check` and `serve --profile` (the built CLI: run `npm run build` first). Every built-in and the
 * docs' example pass; a profile with a mistake is refused with its line, column, path and how to mend it, exit 2 —
 * by `profile check` and by `serve`, before any request.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { whole } from '../../src/contract/profile-template.js';

const REPO = join(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'main.js');
const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'jobproof-profile-'));

/** The reports example with one edit, written to a file; `line` finds the line the edit is on. */
function broken(name: string, edit: (text: string) => string): string {
  const f = join(dir, `${name}.json`);
  writeFileSync(f, edit(readFileSync(join(REPO, 'examples/profiles/reports.json'), 'utf8')));
  return f;
}
function lineOf(file: string, needle: string): number {
  return (
    readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(needle)) + 1
  );
}

describe('jobproof profile check', () => {
  it('accepts every built-in profile and the docs example (exit 0)', () => {
    const r = run(['profile', 'check', 'native', 'google-lro', 'gemini-batch', 'azure-lro', 'replicate', 'examples/profiles/reports.json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(6);
  });

  it.each([
    [
      'unknown-field',
      (t: string) => t.replace('"times"', '"timez"').replace('"view": {', '"colour": "blue",\n  "view": {'),
      '"colour"',
      /colour.*\n\s+fix: remove "colour"/,
    ],
    [
      'unmapped-state',
      (t: string) => t.replace('"expired": "expired"', '"expired": "finished"'),
      '"expired": "finished"',
      /state\.values\.expired: .*\n\s+fix: use one of "queued"/,
    ],
    [
      'route-without-id',
      (t: string) => t.replace('"/v1/reports/{id}/cancel"', '"/v1/reports/cancel"'),
      '/v1/reports/cancel',
      /cancel\.route\.path: the cancel route has no \{id\}\n\s+fix: put \{id\}/,
    ],
    [
      'serve-as-unmapped',
      (t: string) =>
        t.replace('"cancelling": "cancelling",', '').replace('"state": {', '"state": {\n    "serve_as": { "cancelling": "stopping" },'),
      '"serve_as"',
      /"stopping" is not a state value mapped in state\.values/,
    ],
    [
      'unknown-variable',
      (t: string) => t.replace(`"${whole('updated_at')}"`, `"${whole('updatedAt')}"`),
      whole('updatedAt'),
      /unknown variable \$\{updatedAt\}/,
    ],
  ])('refuses %s with its line and how to mend it (exit 2)', (name, edit, needle, message) => {
    const f = broken(name, edit);
    const r = run(['profile', 'check', f]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(`${f}:${lineOf(f, needle)}:`);
  });

  it('names the place of a JSON syntax error', () => {
    const f = broken('syntax', (t) => t.replace('"profile": 1,', '"profile": 1'));
    const r = run(['profile', 'check', f]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${f}:${lineOf(f, '"name"')}:\\d+ \\(file\\): not valid JSON`));
  });

  it('serve refuses a broken profile before it listens (exit 2, the same located message)', () => {
    const f = broken('serve-broken', (t) => t.replace('"/v1/reports/{id}"', '"/v1/reports/one"'));
    const r = run(['serve', '--port', '0', '--db', ':memory:', '--profile', f]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/read\.route\.path: the read route has no \{id\}/);
    expect(r.stdout).not.toContain('listening');
  });
});

describe('YAML profiles through the CLI', () => {
  /** The YAML example with one edit; the mistake must be named at `needle`'s line and column. */
  function brokenYaml(name: string, edit: (text: string) => string): string {
    const f = join(dir, `${name}.yaml`);
    writeFileSync(f, edit(readFileSync(join(REPO, 'examples/profiles/reports.yaml'), 'utf8')));
    return f;
  }
  function colOf(file: string, needle: string): string {
    const lines = readFileSync(file, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.includes(needle));
    return `${i + 1}:${lines[i]!.indexOf(needle) + 1}`;
  }
  const mistakes: Array<[string, (t: string) => string, string, RegExp]> = [
    ['unknown-field', (t) => t.replace('view: #', 'colour: blue\nview: #'), 'colour:', /colour: .*\n\s+fix: remove "colour"/],
    ['unmapped-state', (t) => t.replace('expired: expired', 'expired: finished'), 'expired: finished', /state\.values\.expired: /],
    [
      'route-without-id',
      (t) => t.replace('path: "/v1/reports/{id}/cancel"', 'path: /v1/reports/cancel'),
      'path: /v1/reports/cancel',
      /cancel\.route\.path: the cancel route has no \{id\}/,
    ],
  ];

  it('profile check accepts the YAML example', () => {
    const r = run(['profile', 'check', 'examples/profiles/reports.yaml']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("examples/profiles/reports.yaml: ok — profile 'reports' served at /profiles/reports");
  });

  it.each(mistakes)('profile check and serve refuse %s at its line:col (exit 2)', (name, edit, needle, message) => {
    const f = brokenYaml(name, edit);
    for (const args of [
      ['profile', 'check', f],
      ['serve', '--port', '0', '--db', ':memory:', '--profile', f],
    ]) {
      const r = run(args);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`${f}:${colOf(f, needle)} `);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).not.toContain('listening');
    }
  });
});

describe('jobproof serve --profile', () => {
  it("prints each profile's base URL and serves it (JSON built-in and YAML file), with the schema at /_profiles/schema.json", async () => {
    const proc = spawn(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--db', ':memory:', '--profile', 'replicate', '--profile', 'examples/profiles/reports.yaml'],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let banner = '';
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (c: Buffer) => {
        banner += c.toString();
        if (banner.includes('Try:')) resolve();
      });
      proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${banner}`)));
    });
    try {
      const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
      expect(banner).toContain(`  profile replicate: ${url}/profiles/replicate`);
      expect(banner).toContain(`  profile reports: ${url}/profiles/reports`);
      const res = await fetch(`${url}/profiles/reports/v1/reports`, {
        method: 'POST',
        headers: { authorization: 'Bearer dev-token', 'idempotency-key': 'idem_5b5c76c7', 'content-type': 'application/json' },
        body: JSON.stringify({ account: 'acct_218', range: { start: '2025-02-01', end: '2025-02-28' }, format: 'csv' }),
      });
      expect(res.status).toBe(202);
      const body = (await res.json()) as { job_id: string; status_url: string };
      expect(res.headers.get('location')).toBe(body.status_url);
      expect((await fetch(`${url}/_profiles/schema.json`)).status).toBe(200);
    } finally {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
    }
  });
});
