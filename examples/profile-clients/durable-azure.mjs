#!/usr/bin/env node
// A durable client of the azure-lro status monitor on @azure/core-lro and @azure-rest/core-client, unmodified
// (Node >= 22): its own SQLite record before every create, an Operation-Id per operation (so a resend is the same
// operation), a lease and fencing token per operation, pipeline retries off (the loop waits Retry-After within its
// deadlines), a lost create found by the `clientReference` filter, cancel confirmed by the monitor's status, the
// result checked against its digest. A process client for `certify --profile azure-lro`.
import { workLoop } from '../sdk-clients/lib/durable.mjs';
import { azureWire } from './lib/azure-wire.mjs';
import { main } from './lib/protocol.mjs';

await main({ profile: 'azure-lro', keyed: true, work: (store, env, signal) => workLoop(store, env, azureWire(env), signal) });
