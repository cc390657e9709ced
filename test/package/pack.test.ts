import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as a user gets it: `npm pack`, the tarball installed into an empty project, every subpath imported,
 * the CLI run through npx, README's programmatic example (examples/programmatic.mjs) run as is. Needs a built dist
 * (`npm test` builds first). About 30–60 s, most of it `npm install` from the local npm cache.
 */
const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

const SUBPATHS = [
  'jobproof',
  'jobproof/provider',
  'jobproof/client',
  'jobproof/conformance',
  'jobproof/scenarios',
  'jobproof/verify-provider',
  'jobproof/contract',
];
const ROOT_NAMES = [
  'RealClock',
  'VirtualClock',
  'certifyInProcess',
  'createProvider',
  'createReferenceClient',
  'expectCertified',
  'propertyRun',
  'realClock',
  'serve',
  'verifyProvider',
];

let work: string;
let proj: string;
let packed: { filename: string; files: Array<{ path: string }> };

async function node(code: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: proj });
  return stdout.trim();
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  work = mkdtempSync(join(tmpdir(), 'jobproof-pack-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work, ...NPM_FLAGS], { cwd: ROOT });
  packed = JSON.parse(stdout)[0];
  proj = join(work, 'project');
  mkdirSync(proj);
  writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'uses-jobproof', private: true, type: 'module' }));
  // --ignore-scripts: better-sqlite3 would compile from source here (minutes on two cores, no prebuilt download);
  // its binary is copied from this checkout instead, the same version built on the same machine.
  await run('npm', ['install', ...NPM_FLAGS, '--ignore-scripts', join(work, packed.filename)], { cwd: proj });
  cpSync(join(ROOT, 'node_modules/better-sqlite3/build'), join(proj, 'node_modules/better-sqlite3/build'), { recursive: true });
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships dist, README and docs: no sources, tests or benchmarks', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toContain('dist/index.js');
    expect(paths).toContain('dist/contract/index.d.ts');
    expect(paths.filter((p) => /^(src|test|bench)\/|^dist\/bench\/|^dist-bench\//.test(p))).toEqual([]);
  });

  it('imports every subpath from a clean project, msw not installed; the root holds only the names a user needs', async () => {
    const out = await node(`
      const names = {};
      for (const p of ${JSON.stringify(SUBPATHS)}) names[p] = Object.keys(await import(p)).sort();
      console.log(JSON.stringify(names));`);
    const names: Record<string, string[]> = JSON.parse(out);
    expect(names.jobproof).toEqual(ROOT_NAMES);
    expect(names['jobproof/provider']).toContain('createProvider');
    expect(names['jobproof/client']).toContain('createReferenceClient');
    expect(names['jobproof/client']).toContain('createTaskClient');
    expect(names['jobproof/conformance']).toEqual(expect.arrayContaining(['check', 'propertyRun', 'runTaskScenario', 'checkTasks']));
    expect(names['jobproof/scenarios']).toEqual(expect.arrayContaining(['catalog', 'parseScenario']));
    expect(names['jobproof/verify-provider']).toContain('verifyProvider');
    expect(names['jobproof/contract']).toEqual(
      expect.arrayContaining([
        'JobSchema',
        'JournalEntrySchema',
        'OperationRecordSchema',
        'INVARIANTS',
        'ProblemSchema',
        'WebhookEventSchema',
      ]),
    );
  });

  it('refuses deep imports into dist', async () => {
    await expect(node(`await import('jobproof/dist/fake-provider/index.js')`)).rejects.toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it('jobproof/msw needs msw (an optional peer) and loads once it is installed', async () => {
    await expect(node(`await import('jobproof/msw')`)).rejects.toThrow(/Cannot find package 'msw'/);
    const version = JSON.parse(readFileSync(join(ROOT, 'node_modules/msw/package.json'), 'utf8')).version;
    await run('npm', ['install', ...NPM_FLAGS, '--ignore-scripts', `msw@${version}`], { cwd: proj });
    expect(await node(`console.log(typeof (await import('jobproof/msw')).jobproofHandlers)`)).toBe('function');
  }, 120_000);

  it('runs `npx jobproof --help`', async () => {
    const { stdout } = await run('npx', ['--no-install', 'jobproof', '--help'], { cwd: proj });
    expect(stdout).toMatch(/Usage: jobproof/);
    expect(stdout).toMatch(/certify/);
    expect(stdout).toMatch(/verify-provider/);
  });

  it('runs `jobproof certify --in-process` on two property lanes (the worker entry ships and resolves)', async () => {
    const { stdout } = await run(
      'npx',
      ['--no-install', 'jobproof', 'certify', '--in-process', '--scenarios', 'none', '--runs', '4', '--seed', '42', '--lanes', '2'],
      { cwd: proj },
    );
    expect(stdout).toMatch(/2 lanes/);
    expect(stdout).toMatch(/4 schedules: 4 pass/);
  }, 120_000);

  it("runs README's programmatic example (examples/programmatic.mjs)", async () => {
    cpSync(join(ROOT, 'examples/programmatic.mjs'), join(proj, 'programmatic.mjs'));
    const { stdout } = await run(process.execPath, ['programmatic.mjs'], { cwd: proj });
    const out = JSON.parse(stdout.trim());
    expect(out.created).toBe(202);
    expect(out.state).toBe('succeeded');
    expect(out.journal).toContain('request');
  });
});
