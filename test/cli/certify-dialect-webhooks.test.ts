import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built CLI (npm run build first): a dialect client's webhook handling — signature check, de-duplication by
// `webhook-id`, a final read before success — judged in the OpenAI dialect, whose webhooks go to a per-project
// endpoint: each run gets its own project (tenant, token, signing secret) and an endpoint that relays to its workers.
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const mutant = `'${process.execPath}' '${fileURLToPath(new URL('../conformance/mutants/process/client.mjs', import.meta.url))}' trusts-unsigned-webhooks`;
const WEBHOOK_SCENARIOS = ['duplicate-webhook', 'out-of-order-webhooks', 'dropped-webhooks', 'forged-webhook'];

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

describe('certify --dialect openai --webhooks', () => {
  it('judges the webhook scenarios for the reference client speaking OpenAI Batch: each runs and passes, none skipped', {
    timeout: 180_000,
  }, async () => {
    const r = await run(['certify', '--dialect', 'openai', '--webhooks', '--scenarios', WEBHOOK_SCENARIOS.join(',')]);
    expect(r.stdout).toMatch(/webhooks: on/);
    for (const name of WEBHOOK_SCENARIOS) expect(r.stdout, r.stdout).toMatch(new RegExp(`\\] ${name}\\s+pass\\b`));
    expect(r.stdout).not.toMatch(/skipped/);
    expect(r.stdout).toMatch(/I13 webhook-safety\s+held/);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('catches a client that trusts an unsigned webhook: it ends failed on a forged batch.failed (I4, I13)', {
    timeout: 180_000,
  }, async () => {
    const r = await run(['certify', '--dialect', 'openai', '--webhooks', '--scenarios', 'forged-webhook', '--client', mutant]);
    expect(r.stdout, r.stdout + r.stderr).toMatch(/forged-webhook\s+FAIL .*broken: I4 I13/);
    expect(r.stdout).toMatch(/accepted a forged webhook, #\d+ batch\.failed unsigned/);
    expect(r.code).toBe(1);
  });

  it('refuses --webhooks for anthropic, which sends no batch webhooks, with exit 2 and the reason', async () => {
    const r = await run(['certify', '--dialect', 'anthropic', '--webhooks', '--client', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the Anthropic Message Batches API sends no webhooks/);
  });
});
