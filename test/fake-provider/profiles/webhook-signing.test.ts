/**
 * `webhooks.signing`: `standard` signs each delivery (Standard Webhooks), `none` sends the payload alone, as an API
 * that signs nothing does. Two copies of the replicate profile, one of each, on one provider.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../../src/contract/profiles.js';
import { waitFor } from '../../helpers/provider-server.js';
import { startDialectServer, type DialectServer } from '../dialects/helpers.js';
import { builtin } from './helpers.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const received = new Map<string, { body: string; headers: http.IncomingHttpHeaders }>();
let receiver: http.Server;
let hook: string;
let s: DialectServer;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.set(req.url!, { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const signed = builtin('replicate');
  const unsigned: Profile = {
    ...signed,
    name: 'replicate-unsigned',
    prefix: '/profiles/replicate-unsigned',
    webhooks: { ...signed.webhooks!, signing: 'none' },
  };
  s = await startDialectServer({ profiles: [signed, unsigned], behavior: { default: { duration_ms: 1000, items: 1 } } });
});
afterAll(async () => {
  await s.stop();
  await new Promise((r) => receiver.close(r));
});

describe('webhooks.signing', () => {
  it('none sends no signature; standard signs; both carry the same payload form', async () => {
    for (const name of ['replicate', 'replicate-unsigned']) {
      const c = await s.call('POST', `/profiles/${name}/v1/predictions`, {
        body: { version: 'v1', input: { prompt: name }, webhook: `${hook}/${name}`, webhook_events_filter: ['completed'] },
      });
      expect(c.status).toBe(201);
    }
    await s.advance(1500);
    await waitFor(() => received.size >= 2);
    await s.provider.idle();
    const plain = received.get('/replicate-unsigned')!;
    expect(plain.headers['content-type']).toBe('application/json');
    for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(plain.headers[h]).toBeUndefined();
    expect(JSON.parse(plain.body)).toMatchObject({ status: 'succeeded' });
    const signed = received.get('/replicate')!;
    expect(new Webhook(SECRET).verify(signed.body, signed.headers as Record<string, string>)).toMatchObject({ status: 'succeeded' });
  });
});
