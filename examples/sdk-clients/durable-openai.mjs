#!/usr/bin/env node
// A durable OpenAI Batch client on the official SDK, unmodified: its own SQLite record before every create, a
// lease and fencing token per operation, SDK retries off (a retried create makes a second batch: the API keeps no
// key), a lost create recovered by listing batches by `metadata`, Retry-After respected, cancel confirmed by the
// batch's own status, results verified line by line. A process client for `jobproof certify --dialect openai`.
import OpenAI from 'openai';
import { main } from './lib/protocol.mjs';
import { workLoop } from './lib/durable.mjs';
import { openaiWire } from './lib/openai-wire.mjs';

await main({
  dialect: 'openai',
  work: (store, env, signal) =>
    workLoop(store, env, openaiWire(new OpenAI({ apiKey: env.token, baseURL: `${env.root}/openai/v1`, maxRetries: 0 })), signal),
});
