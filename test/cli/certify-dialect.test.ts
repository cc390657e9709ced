import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built CLI (npm run build first), as a team runs it against its own batch client.
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const example = (f: string) => `'${process.execPath}' '${fileURLToPath(new URL(`../../examples/sdk-clients/${f}`, import.meta.url))}'`;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('certify --dialect', () => {
  it.each([
    [['--dialect', 'gemini'], /--dialect must be one of native, openai, anthropic/],
    [['--dialect', 'openai', '--in-process'], /does not take --in-process/],
    [['--dialect', 'anthropic', '--webhooks', '--client', 'x'], /Anthropic Message Batches API sends no webhooks/],
    [['--dialect', 'openai', '--tasks', '--client', 'x'], /--tasks certifies the native tasks API/],
  ])('refuses %j with exit 2 and says why', async (args, message) => {
    const r = await run(['certify', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('breaks I1 on the naive openai-node client when the first create answer is lost (exit 1)', { timeout: 120_000 }, async () => {
    const r = await run(['certify', '--dialect', 'openai', '--client', example('naive-openai.mjs'), '--scenarios', 'lost-create-response']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/lost-create-response\s+FAIL .*broken: I1/);
    expect(r.stdout).toMatch(/caused 2 batches/);
  });

  it('certifies the durable Anthropic client and reports a scenario the dialect cannot express as not applicable (exit 0)', {
    timeout: 120_000,
  }, async () => {
    const r = await run([
      'certify',
      '--dialect',
      'anthropic',
      '--client',
      example('durable-anthropic.mjs'),
      '--scenarios',
      'partial-batch,foreign-job-id',
    ]);
    expect(r.stdout).toMatch(/dialect anthropic/);
    expect(r.stdout).toMatch(/foreign-job-id\s+not applicable: anthropic: the API takes no idempotency key/);
    expect(r.stdout).toMatch(/partial-batch\s+pass/);
    expect(r.code).toBe(0);
  });
});
