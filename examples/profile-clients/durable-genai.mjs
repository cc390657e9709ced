#!/usr/bin/env node
// A durable Gemini Batch client on @google/genai, unmodified (Node >= 22): its own SQLite record before every
// create, a lease and fencing token per operation, one attempt per SDK call (its default), a lost create found
// again by listing batches by displayName (the API has no request id), cancel confirmed by the batch's own state,
// inlined responses checked item by item. A process client for `certify --profile gemini-batch`.
import { workLoop } from '../sdk-clients/lib/durable.mjs';
import { genaiWire } from './lib/genai-wire.mjs';
import { main } from './lib/protocol.mjs';

await main({ profile: 'gemini-batch', work: (store, env, signal) => workLoop(store, env, genaiWire(env), signal) });
