/**
 * A tenant (an OpenAI project) made at run time through the control API, with its own endpoint and signing secret:
 * its batch events reach its endpoint only, signed with its secret, and another tenant's never do — what a harness
 * needs to give each run its own tenant and endpoint. A provider reopened on its file keeps both.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/provider-server.js';
import { ids, openaiJsonl, startDialectServer, type DialectServer } from './helpers.js';

interface Receiver {
  url: string;
  got: Array<{ body: string; headers: Record<string, string> }>;
  server: http.Server;
}

async function receiver(): Promise<Receiver> {
  const got: Receiver['got'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers as Record<string, string> });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, server };
}

const RUN_SECRET = 'whsec_cnVuLTctc2VjcmV0LW9mLXRoaXMtcnVu';
const ACME_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const dir = mkdtempSync(join(tmpdir(), 'jobproof-openai-tenants-'));
let ps: DialectServer;
let acme: Receiver;
let run: Receiver;

beforeAll(async () => {
  [acme, run] = await Promise.all([receiver(), receiver()]);
  ps = await startDialectServer({ db: join(dir, 'provider.db'), behavior: { default: { duration_ms: 1000 } } });
});
afterAll(async () => {
  await ps.stop();
  await Promise.all([acme, run].map((r) => new Promise((done) => r.server.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

async function completeBatch(token: string, secret: string, prefix: string): Promise<{ client: OpenAI; id: string }> {
  const client = new OpenAI({ apiKey: token, baseURL: `${ps.url}/openai/v1`, webhookSecret: secret });
  const file = await client.files.create({ file: await toFile(Buffer.from(openaiJsonl(ids(prefix, 2))), 'in.jsonl'), purpose: 'batch' });
  const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  return { client, id: batch.id };
}

describe('a per-run tenant with its own OpenAI webhook endpoint', () => {
  it('each tenant’s events reach its own endpoint, signed with its own secret', async () => {
    const principals = await ps.control('PUT', '/_control/principals', {
      body: { tokens: { 'run-7-token': { tenant: 'run-7', subject: 'worker-1', roles: ['submitter'] } } },
    });
    expect(principals.status).toBe(200);
    const put = await ps.control('PUT', '/_control/dialects/openai/webhook', {
      body: { tenant: 'run-7', url: run.url, secret: RUN_SECRET },
    });
    expect(put.json).toEqual({ urls: { 'run-7': run.url } });
    await ps.control('PUT', '/_control/dialects/openai/webhook', { body: { tenant: 'acme', url: acme.url } });

    const mine = await completeBatch('run-7-token', RUN_SECRET, 'run');
    const theirs = await completeBatch('dev-token', ACME_SECRET, 'acme');
    await ps.advance(1000);
    await waitFor(() => run.got.length >= 1 && acme.got.length >= 1);
    await ps.provider.idle();
    expect(run.got).toHaveLength(1);
    expect(acme.got).toHaveLength(1);
    const event = await mine.client.webhooks.unwrap(run.got[0]!.body, run.got[0]!.headers);
    expect(event).toMatchObject({ type: 'batch.completed', data: { id: mine.id } });
    expect((await theirs.client.webhooks.unwrap(acme.got[0]!.body, acme.got[0]!.headers)).data).toEqual({ id: theirs.id });
    // Neither endpoint's secret verifies the other's delivery.
    await expect(theirs.client.webhooks.unwrap(run.got[0]!.body, run.got[0]!.headers)).rejects.toThrow(/signature/);
    // A tenant sees only its own batches.
    expect((await theirs.client.batches.list()).data.map((b) => b.id)).not.toContain(mine.id);
  });

  it('refuses a secret that is not whsec_ base64, in the control API’s error shape', async () => {
    const res = await ps.control('PUT', '/_control/dialects/openai/webhook', {
      body: { tenant: 'run-8', url: run.url, secret: 'hunter2' },
    });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/secret/);
  });

  it('a provider reopened on its file still sends the run tenant’s events to its endpoint with its secret', async () => {
    await ps.stop();
    ps = await startDialectServer({ db: join(dir, 'provider.db'), behavior: { default: { duration_ms: 1000 } } });
    const before = run.got.length;
    const mine = await completeBatch('run-7-token', RUN_SECRET, 'again');
    await ps.advance(1000);
    await waitFor(() => run.got.length > before, 5000);
    expect(await mine.client.webhooks.unwrap(run.got.at(-1)!.body, run.got.at(-1)!.headers)).toMatchObject({ data: { id: mine.id } });
  });
});
