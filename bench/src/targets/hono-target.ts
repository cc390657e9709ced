/** Bench ceiling: a bare Hono app on @hono/node-server answering the fixed stub. Prints its URL, then serves. */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { readStub } from './stub.js';

const stub = readStub(process.argv[2]);
const app = new Hono();
const json = { 'content-type': 'application/json' };
app.get('/v1/jobs/:id', () => new Response(stub.status.body, { status: stub.status.status, headers: json }));
app.post('/v1/jobs', () => new Response(stub.create.body, { status: stub.create.status, headers: json }));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
  process.stdout.write(`bare hono listening on http://127.0.0.1:${info.port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
