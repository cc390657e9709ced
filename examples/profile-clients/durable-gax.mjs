#!/usr/bin/env node
// A durable client of an AIP-151 API on google-gax's operations client, unmodified (Node >= 22): its own SQLite
// record before every create, the operation's key as AIP-155 `request_id` (a resend is the same operation), a
// lease and fencing token per operation, a lost create found with the list filter on `metadata.requestId`, cancel
// confirmed by the operation's own `done` + code 1, the response checked against its digest. A process client for
// `certify --profile google-lro`.
import { workLoop } from '../sdk-clients/lib/durable.mjs';
import { gaxWire } from './lib/gax-wire.mjs';
import { main } from './lib/protocol.mjs';

await main({ profile: 'google-lro', keyed: true, work: (store, env, signal) => workLoop(store, env, gaxWire(env), signal) });
