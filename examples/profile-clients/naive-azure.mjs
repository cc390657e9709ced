#!/usr/bin/env node
// The obvious first client of an Azure status-monitor LRO, on @azure/core-lro's poller over the core-client
// pipeline with their defaults (3 retries of any method on a reset connection, 408, 5xx; Retry-After honoured; no
// Operation-Id): start the poller, `pollUntilDone()`, cancel through the same client when asked. Needs Node >= 22.
// `jobproof certify --profile azure-lro` catches it.
import { isFinal } from '../sdk-clients/lib/store.mjs';
import { azureClient, operationIdOf, startPoller } from './lib/azure-client.mjs';
import { baseUrl, main, runEachOpen } from './lib/protocol.mjs';
import { digestOf } from './lib/results.mjs';

const restoreState = (env, id) =>
  JSON.stringify({
    state: {
      status: 'running',
      config: { operationLocation: `${baseUrl(env, 'azure-lro')}/operations/${id}`, metadata: { mode: 'OperationLocation' } },
    },
  });

async function run(store, env, op, client) {
  const move = (to, cause, patch) => store.update(op, { to, cause, patch, worker: env.worker });
  // A worker that starts over an operation already created polls its status monitor with a poller restored from
  // the Operation-Location (core-lro's own serialized form).
  const poller = op.batch_id
    ? startPoller(client, null, {}, { restoreFrom: restoreState(env, op.batch_id) })
    : startPoller(client, op.request.input);
  await poller.submitted();
  const id = op.batch_id ?? operationIdOf(poller);
  if (!op.batch_id) {
    move('accepted', 'created', { batch_id: id });
    move('observing', 'polling');
  }
  const stop = setInterval(async () => {
    const cur = store.get(op.id);
    if (cur.cancel && !cur.cancel_sent_at) {
      store.update(op, { patch: { cancel_sent_at: Date.now() } });
      await client.pathUnchecked(`/operations/${id}:cancel`).post();
      move('cancel_requested', 'cancel intent');
      move('cancelled', 'cancel sent');
    }
  }, 200);
  try {
    const final = await poller.pollUntilDone();
    if (isFinal(store.get(op.id).state)) return;
    move('result_collecting', 'operation succeeded');
    const items = final?.result?.items ?? [];
    move('succeeded', 'result kept', { result: { sha256: digestOf(items), items_total: items.length, items_failed: 0 } });
  } catch (err) {
    if (!isFinal(store.get(op.id).state)) move(/cancel/i.test(err.message) ? 'cancelled' : 'failed', err.message);
  } finally {
    clearInterval(stop);
  }
}

await main({
  profile: 'azure-lro',
  async work(store, env, signal) {
    const client = azureClient(env);
    await runEachOpen(store, signal, isFinal, (op) => run(store, env, op, client));
  },
});
