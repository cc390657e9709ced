/**
 * Replicate's profile: `webhook` + `webhook_events_filter` deliver the prediction itself, signed (Standard Webhooks),
 * only the events asked for; `Prefer: wait` holds the create until the prediction is final.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/provider-server.js';
import type { DialectServer } from '../dialects/helpers.js';
import { startProfileServer } from './helpers.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const received: Array<{ body: string; headers: Record<string, string> }> = [];
let receiver: http.Server;
let hook: string;
let s: DialectServer;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers as Record<string, string> });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  s = await startProfileServer(['replicate'], { behavior: { default: { duration_ms: 1000, items: 2 } } });
});
afterAll(async () => {
  await s.stop();
  await new Promise((r) => receiver.close(r));
});

describe('replicate profile', () => {
  it('sends only the completed event, with the prediction as payload, signed', async () => {
    const c = await s.call('POST', '/profiles/replicate/v1/predictions', {
      body: { version: 'v1', input: { prompt: 'hi' }, webhook: hook, webhook_events_filter: ['completed'] },
    });
    expect(c.status).toBe(201);
    expect(c.json.status).toBe('starting');
    await s.advance(1500);
    await waitFor(() => received.length >= 1);
    await s.provider.idle();
    expect(received).toHaveLength(1);
    const payload = new Webhook(SECRET).verify(received[0]!.body, received[0]!.headers) as {
      id: string;
      status: string;
      output: unknown[];
    };
    expect(payload).toMatchObject({ id: c.json.id, status: 'succeeded' });
    expect(payload.output).toHaveLength(2);
  });

  it('Prefer: wait answers with the final prediction once the job ends inside the wait', async () => {
    const pending = s.call('POST', '/profiles/replicate/v1/predictions', {
      headers: { prefer: 'wait=5' },
      body: { version: 'v1', input: { prompt: 'x' } },
    });
    // The provider's clock is virtual: move it until the held create answers.
    let done = false;
    void pending.then(() => {
      done = true;
    });
    for (let i = 0; i < 40 && !done; i++) await s.advance(100);
    const r = await pending;
    expect(r.status).toBe(201);
    expect(r.json.status).toBe('succeeded');
  });
});
