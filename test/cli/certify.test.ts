import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CertificationReportSchema } from '../../src/conformance/report/schema.js';

// `jobproof certify` as a team runs it (dist/, npm run build first). One representative process run; the whole
// catalog (`npx jobproof certify` exactly as the README gives it) is behind JOBPROOF_LONG.
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jobproof-certify-cli-'));
const LONG = !!process.env.JOBPROOF_LONG;

function certify(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'certify', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('jobproof certify (process runner)', () => {
  it('calibrates, skips webhook-only scenarios for a polling client, and writes one report structure', { timeout: 300_000 }, async () => {
    const json = join(dir, 'r.json');
    const r = await certify([
      '--scenarios',
      'duplicate-webhook,sync-completion',
      '--report',
      `json=${json},junit=${join(dir, 'r.xml')},md=${join(dir, 'r.md')}`,
    ]);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/time scale \d+(\.\d)?× — client start \d+ ms, provider round trip [\d.]+ ms \(calibrated/);
    expect(r.stdout).toMatch(/duplicate-webhook\s+skipped: client does not listen for webhooks/);
    expect(r.stdout).toMatch(/PASSED: 1 pass, 0 fail, 1 skipped of 2 cases/);
    const report = CertificationReportSchema.parse(JSON.parse(readFileSync(json, 'utf8')));
    expect(report.time_scale.source).toBe('calibrated');
    expect(report.webhooks).toBe(false);
    expect(report.cases.map((c) => [c.name, c.verdict])).toEqual([
      ['duplicate-webhook', 'skipped'],
      ['sync-completion', 'pass'],
    ]);
    expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toContain('<skipped message="skipped: client does not listen for webhooks"/>');
  });

  it('is not certified when nothing passed (every case skipped), and says so with exit 1', { timeout: 120_000 }, async () => {
    const r = await certify(['--scenarios', 'duplicate-webhook', '--time-scale', '1']);
    expect(r.stdout).toContain('time scale 1× (--time-scale)');
    expect(r.stdout).toMatch(/FAILED: 0 pass, 0 fail, 1 skipped/);
    expect(r.code).toBe(1);
  });

  it('puts task scenarios into the same report, by the same rule', { timeout: 120_000 }, async () => {
    const json = join(dir, 'tasks.json');
    const r = await certify(['--in-process', '--scenarios', 'none', '--runs', '0', '--tasks', '--report', `json=${json}`]);
    expect(r.code, r.stdout).toBe(0);
    const report = CertificationReportSchema.parse(JSON.parse(readFileSync(json, 'utf8')));
    expect(report.cases.length).toBeGreaterThan(0);
    expect(report.cases.every((c) => c.kind === 'task' && c.verdict === 'pass')).toBe(true);
    expect(report.invariants.map((i) => i.id)).toContain('T1');
  });

  it('runs in-process random schedules on lanes (worker threads) with the verdicts of one thread', { timeout: 180_000 }, async () => {
    const args = ['--in-process', '--scenarios', 'none', '--runs', '12', '--seed', '42'];
    const [one, two] = [await certify([...args, '--lanes', '1']), await certify([...args, '--lanes', '2'])];
    expect(one.code, one.stdout).toBe(0);
    expect(two.code, two.stdout).toBe(0);
    expect(two.stdout).toMatch(/random schedules: 12 \(seed 42, time scale 1×, webhooks on, 2 lanes\)/);
    const counts = (out: string) => /12 schedules: ([^(]+)\(/.exec(out)?.[1];
    expect(counts(two.stdout)).toBe(counts(one.stdout));
    expect(counts(one.stdout)).toBe('12 pass ');
  });

  it.runIf(LONG)('`npx jobproof certify` exactly as the README gives it passes', { timeout: 1_800_000 }, async () => {
    const r = await certify([]);
    expect(r.code, r.stdout).toBe(0);
  });
});
