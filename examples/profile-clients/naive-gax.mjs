#!/usr/bin/env node
// The obvious first client of an AIP-151 API, on google-gax's operations client with its defaults (reads and
// cancels retried on UNAVAILABLE/DEADLINE_EXCEEDED, 100 ms ×1.3 polling without end, Retry-After never read; the body's request_id is whatever `submit` gave):
// send the create, wrap the Operation in gax's LROperation, `promise()` it, `cancel()` when asked. Needs Node >= 22.
// `jobproof certify --profile google-lro` catches it.
import { isFinal } from '../sdk-clients/lib/store.mjs';
import { gaxClient } from './lib/gax-client.mjs';
import { main, runEachOpen } from './lib/protocol.mjs';
import { digestOf } from './lib/results.mjs';

async function run(store, env, op, gax) {
  const move = (to, cause, patch) => store.update(op, { to, cause, patch, worker: env.worker });
  let name = op.batch_id && `operations/${op.batch_id}`;
  if (!name) {
    name = (await gax.create(op.request.input)).name;
    move('accepted', 'created', { batch_id: name.replace(/^operations\//, '') });
    move('observing', 'polling');
  }
  const lro = await gax.operation(name);
  const watch = setInterval(async () => {
    const cur = store.get(op.id);
    if (cur.cancel && !cur.cancel_sent_at) {
      store.update(op, { patch: { cancel_sent_at: Date.now() } });
      await lro.cancel();
      move('cancel_requested', 'cancel intent');
      move('cancelled', 'cancel sent');
    }
  }, 200);
  try {
    const [report] = await lro.promise();
    if (isFinal(store.get(op.id).state)) return;
    const items = report?.items ?? [];
    move('result_collecting', 'operation done');
    move('succeeded', 'response kept', { result: { sha256: digestOf(items), items_total: items.length, items_failed: 0 } });
  } catch (err) {
    if (!isFinal(store.get(op.id).state)) move(err?.code === 1 ? 'cancelled' : 'failed', err?.message ?? String(err));
  } finally {
    clearInterval(watch);
  }
}

await main({
  profile: 'google-lro',
  async work(store, env, signal) {
    const gax = gaxClient(env);
    await runEachOpen(store, signal, isFinal, (op) => run(store, env, op, gax));
  },
});
