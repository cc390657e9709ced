/**
 * `jobproof serve` (a real process, dist/cli/main.js: run `npm run build` first) prints every dialect's base URL with an
 * SDK snippet, and `--scenario` applies in each dialect: the SDKs, pointed at the printed base URLs, meet its faults.
 */
import Anthropic from '@anthropic-ai/sdk';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicRequests, openaiJsonl } from '../fake-provider/dialects/helpers.js';

const REPO = join(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'main.js');

let proc: ChildProcess;
let banner = '';

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
  proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', ':memory:', '--scenario', 'rate-limited'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      banner += c.toString();
      if (banner.includes('Try:')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`serve exited (${code}): ${banner}${err}`)));
  });
});
afterAll(async () => {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
});

describe('jobproof serve with dialects', () => {
  it("prints each dialect's base URL and a one-line SDK snippet; --scenario applies in both dialects", async () => {
    const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
    const lines = banner.split('\n');
    expect(lines).toContain(`  native:    ${url}/v1            jobproof API (docs/spec/provider-api.md)`);
    expect(lines).toContain(`  openai:    ${url}/openai/v1     new OpenAI({ apiKey: 'dev-token', baseURL: '${url}/openai/v1' })`);
    expect(lines).toContain(`  anthropic: ${url}/anthropic/v1  new Anthropic({ apiKey: 'dev-token', baseURL: '${url}/anthropic' })`);
    const openaiBase = /baseURL: '([^']+\/openai\/v1)'/.exec(banner)![1]!;
    const anthropicBase = /baseURL: '([^']+\/anthropic)'/.exec(banner)![1]!;

    // rate-limited: the first three status reads (any dialect) get 429 with Retry-After: 1.
    const openai = new OpenAI({ apiKey: 'dev-token', baseURL: openaiBase, maxRetries: 0 });
    const file = await openai.files.create({ file: await toFile(Buffer.from(openaiJsonl(['s-1'])), 'in.jsonl'), purpose: 'batch' });
    const batch = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const limited = await openai.batches.retrieve(batch.id).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('1');

    const anthropic = new Anthropic({ apiKey: 'dev-token', baseURL: anthropicBase, maxRetries: 0 });
    const mb = await anthropic.messages.batches.create({ requests: anthropicRequests(['s-1']) });
    await expect(anthropic.messages.batches.retrieve(mb.id)).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    await expect(anthropic.messages.batches.retrieve(mb.id)).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    // The fourth read is past the scenario's rule.
    expect((await anthropic.messages.batches.retrieve(mb.id)).id).toBe(mb.id);
  });

  it('--openai-webhook-url: a bad URL is a usage error (exit 2); a good one is printed with the dialect lines', async () => {
    const bad = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', ':memory:', '--openai-webhook-url', 'ftp://x'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--openai-webhook-url must be an http(s) URL, got 'ftp://x'");
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--port', '0', '--db', ':memory:', '--openai-webhook-url', 'http://127.0.0.1:9/hooks'],
      {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('Try:')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
    });
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    expect(out).toContain(
      "  openai batch events for tenant acme → http://127.0.0.1:9/hooks (Standard Webhooks, the tenant's whsec_ secret)",
    );
  });
});
