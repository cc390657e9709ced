/**
 * The OpenAI dialect's batch events: thin, final only, Standard Webhooks-signed so that openai-node's
 * `client.webhooks.unwrap()` accepts them; a redelivery keeps its `webhook-id`. The Anthropic dialect sends none.
 */
import Anthropic from '@anthropic-ai/sdk';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/provider-server.js';
import { anthropicRequests, ids, openaiJsonl, startDialectServer, type DialectServer } from './helpers.js';

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

let ps: DialectServer;
let receiver: http.Server;
const received: Delivery[] = [];
/** Status the receiver answers with, per delivery index; 200 when not listed. */
const answers: number[] = [];
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = answers[received.length] ?? 200;
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers as Record<string, string> });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  ps = await startDialectServer({
    behavior: { default: { duration_ms: 1000 } },
    openaiWebhooks: { acme: hook },
    webhooks: { backoffMs: 1000 },
  });
});
afterAll(async () => {
  await ps.stop();
  await new Promise((r) => receiver.close(r));
});

describe('OpenAI dialect webhooks', () => {
  it('sends one thin batch.completed, verifiable by client.webhooks.unwrap(); a redelivery keeps webhook-id', async () => {
    const client = new OpenAI({ apiKey: 'dev-token', baseURL: `${ps.url}/openai/v1`, webhookSecret: SECRET });
    const file = await client.files.create({ file: await toFile(Buffer.from(openaiJsonl(ids('hook', 2))), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    answers.push(500); // the first delivery fails: the provider must try again with the same event
    await ps.advance(1000);
    await waitFor(() => received.length >= 1);
    await ps.advance(1000);
    await waitFor(() => received.length >= 2);
    const [first, second] = received;
    const event = await client.webhooks.unwrap(first!.body, first!.headers);
    expect(event).toMatchObject({ object: 'event', type: 'batch.completed', data: { id: batch.id } });
    expect(Object.keys(event.data)).toEqual(['id']);
    expect(Number.isInteger(event.created_at)).toBe(true);
    expect(await client.webhooks.unwrap(second!.body, second!.headers)).toEqual(event);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(first!.headers['webhook-id']).toBe(event.id);
    // A tampered body or another secret is refused by the SDK.
    await expect(client.webhooks.unwrap(first!.body.replace(batch.id, 'batch_x'), first!.headers)).rejects.toThrow(/signature/);
    await expect(client.webhooks.unwrap(first!.body, first!.headers, 'whsec_b3RoZXItc2VjcmV0')).rejects.toThrow(/signature/);
    // Final events only: no event for validating → in_progress.
    const hooks = ps.provider.journal.all().filter((e) => e.type === 'webhook' && e.job_id === batch.id);
    expect(hooks.map((e) => (e.type === 'webhook' ? [e.event_type, e.attempt, e.outcome] : null))).toEqual([
      ['batch.completed', 1, 'failed'],
      ['batch.completed', 2, 'delivered'],
    ]);
  });

  it('sends batch.cancelled for a cancelled batch; webhook faults apply (duplicate)', async () => {
    const client = new OpenAI({ apiKey: 'dev-token', baseURL: `${ps.url}/openai/v1`, webhookSecret: SECRET });
    ps.provider.control.setFaults({ seed: 1, rules: [{ on: 'webhook', fault: { type: 'duplicate', copies: 1 } }] });
    const before = received.length;
    const file = await client.files.create({ file: await toFile(Buffer.from(openaiJsonl(ids('hookc', 2))), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await client.batches.cancel(batch.id);
    await ps.advance(300);
    await waitFor(() => received.length >= before + 2);
    const events = await Promise.all(received.slice(before).map((d) => client.webhooks.unwrap(d.body, d.headers)));
    expect(events.map((e) => [e.type, (e.data as { id: string }).id])).toEqual([
      ['batch.cancelled', batch.id],
      ['batch.cancelled', batch.id],
    ]);
    expect(events[0]!.id).toBe(events[1]!.id);
    ps.provider.control.clearFaults();
  });

  it('the Anthropic dialect sends no webhooks', async () => {
    const client = new Anthropic({ apiKey: 'dev-token', baseURL: `${ps.url}/anthropic` });
    const batch = await client.messages.batches.create({ requests: anthropicRequests(ids('nohook', 1)) });
    await ps.advance(2000);
    expect((await client.messages.batches.retrieve(batch.id)).processing_status).toBe('ended');
    await ps.provider.idle();
    expect(ps.provider.journal.all().filter((e) => e.type === 'webhook' && e.job_id === batch.id)).toEqual([]);
  });
});
