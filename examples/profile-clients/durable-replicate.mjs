#!/usr/bin/env node
// A durable Replicate client on the official `replicate` client, unmodified: its own SQLite record before every
// create, a lease and fencing token per operation, no resend of a create whose answer was lost (the API keeps no
// key) — the prediction is found again by listing and matching its input — Retry-After respected, cancel confirmed
// by the prediction's own status, output checked item by item. A process client for `certify --profile replicate`.
import { workLoop } from '../sdk-clients/lib/durable.mjs';
import { replicateWire } from './lib/replicate-wire.mjs';
import { main } from './lib/protocol.mjs';

await main({ profile: 'replicate', work: (store, env, signal) => workLoop(store, env, replicateWire(env), signal) });
