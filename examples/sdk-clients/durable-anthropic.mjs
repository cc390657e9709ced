#!/usr/bin/env node
// A durable Anthropic Message Batches client on the official SDK, unmodified: its own SQLite record before every
// create, a lease and fencing token per operation, SDK retries off (a retried create makes a second batch: the API
// keeps no key), a lost create recovered by listing (no metadata: matched by creation window and size, confirmed
// by the results' custom_ids), Retry-After respected, cancel confirmed by the batch, results verified line by line.
// A process client for `jobproof certify --dialect anthropic`.
import Anthropic from '@anthropic-ai/sdk';
import { main } from './lib/protocol.mjs';
import { workLoop } from './lib/durable.mjs';
import { anthropicWire } from './lib/anthropic-wire.mjs';

await main({
  dialect: 'anthropic',
  work: (store, env, signal) =>
    workLoop(store, env, anthropicWire(new Anthropic({ apiKey: env.token, baseURL: `${env.root}/anthropic`, maxRetries: 0 })), signal),
});
