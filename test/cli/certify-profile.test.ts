import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CertificationReport } from '../../src/conformance/report/schema.js';
import { builtinProfileNames } from '../../src/contract/profile-files.js';

/**
 * `certify --profile FILE|NAME` through the built CLI (npm run build first): the whole catalog in each built-in
 * profile and the seed's report API with the reference client (every case judged and passed, or not_applicable /
 * not_exercised with its reason), the naive report client caught with I1, and a Python client of the report API
 * certified through processes.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist/cli/main.js');
const REPORTS = join(root, 'examples/profiles/reports.json');
const dir = mkdtempSync(join(tmpdir(), 'jobproof-certify-profile-'));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 }));
  });
}

async function certify(
  profile: string,
  extra: string[] = [],
): Promise<{ code: number | null; report: CertificationReport; stdout: string }> {
  const out = join(dir, `${profile.replace(/\W/g, '_')}-${Date.now()}.json`);
  const r = await run(['certify', '--profile', profile, '--report', `json=${out}`, ...extra]);
  process.stderr.write(`certify --profile ${profile} ${extra.join(' ')}: exit ${r.code}, ${(r.ms / 1000).toFixed(1)} s wall\n`);
  return { code: r.code, report: JSON.parse(readFileSync(out, 'utf8')) as CertificationReport, stdout: r.stdout };
}

/** Every case passed, or says why it was not judged (skipped: a webhook-only scenario for a client on polling). */
function everyCaseJudgedOrExplained(report: CertificationReport): void {
  for (const c of report.cases) {
    expect(
      ['pass', 'not_applicable', 'not_exercised', 'skipped'],
      `${c.name}: ${c.verdict} ${c.reason ?? ''} ${c.failures.join('; ')}`,
    ).toContain(c.verdict);
    if (c.verdict !== 'pass') expect(c.reason, c.name).toMatch(/\w/);
  }
}

describe('certify --profile: usage', () => {
  it.each([
    [['--profile', 'no-such-profile'], /--profile no-such-profile does not check[\s\S]*built-in names: azure-lro/],
    [['--profile', 'replicate', '--dialect', 'openai'], /does not take --dialect/],
    [['--profile', 'replicate', '--webhooks'], /--webhooks is not supported with --profile/],
    [['--profile', 'replicate', '--runs', '5'], /with --profile only the catalog runs/],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const r = await run(['certify', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('refuses a profile with a mistake, naming where, before any scenario runs', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(REPORTS, 'utf8')), surprise: 1 }, null, 2));
    const r = await run(['certify', '--profile', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/broken\.json:\d+:\d+ .*surprise/);
    expect(r.stdout).not.toMatch(/calibrating/);
  });
});

describe('certify --profile: the catalog in every built-in profile, with the reference client', () => {
  it.each([...builtinProfileNames(), REPORTS])(
    '%s: every scenario judged and passed, or not applicable with the reason (exit 0)',
    {
      timeout: 900_000,
    },
    async (profile) => {
      const { code, report, stdout } = await certify(profile);
      everyCaseJudgedOrExplained(report);
      expect(report.cases.filter((c) => c.verdict === 'pass').length).toBeGreaterThan(10);
      expect(report.profile?.name).toBe(profile === REPORTS ? 'reports' : profile);
      expect(stdout).toMatch(/certify — jobproof reference client \(profile /);
      expect(code).toBe(0);
    },
  );
});

describe('certify --in-process --profile: the reference client on a virtual clock', () => {
  it.each([...builtinProfileNames(), REPORTS])('%s: certified (exit 0)', { timeout: 120_000 }, async (profile) => {
    const { code, report } = await certify(profile, ['--in-process']);
    everyCaseJudgedOrExplained(report);
    expect(report.runner).toBe('in-process');
    expect(code).toBe(0);
  });
});

describe('certify --profile examples/profiles/reports.json: other clients', () => {
  it('catches the naive report client (a fresh key on every attempt) with I1 when the first create answer is lost (exit 1)', {
    timeout: 300_000,
  }, async () => {
    const client = `'${process.execPath}' '${join(root, 'examples/profile-clients/naive-reports.mjs')}'`;
    const { code, report } = await certify(REPORTS, ['--client', client, '--scenarios', 'lost-create-response']);
    expect(code).toBe(1);
    const c = report.cases.find((x) => x.name === 'lost-create-response')!;
    expect(c.verdict).toBe('fail');
    expect(c.invariants.I1).toBe('broken');
    expect(c.failures.join('\n')).toMatch(/caused 2 jobs/);
  });

  it('certifies a Python client of the report API through processes (exit 0)', { timeout: 900_000 }, async () => {
    const client = `python3 '${join(root, 'examples/profile-clients/reports_client.py')}'`;
    const { code, report } = await certify(REPORTS, ['--client', client]);
    everyCaseJudgedOrExplained(report);
    expect(report.client).toMatch(/reports_client\.py/);
    expect(report.cases.find((c) => c.name === 'lost-create-response')?.verdict).toBe('pass');
    expect(code).toBe(0);
  });
});
