#!/usr/bin/env node
// The obvious first Replicate client, on the official `replicate` npm client with its defaults: create the
// prediction, `replicate.wait()` for it (every 500 ms, no deadline), cancel when asked, keep the output. Its retry
// loop resends a create whose answer was lost (a second prediction: the API takes no key) and ignores Retry-After
// (docs/profile-clients.md). `jobproof certify --profile replicate` catches it.
import Replicate from 'replicate';
import { isFinal } from '../sdk-clients/lib/store.mjs';
import { baseUrl, main, runEachOpen, withVersion } from './lib/protocol.mjs';
import { digestOf } from './lib/results.mjs';

async function run(store, env, op, replicate) {
  const move = (to, cause, patch) => store.update(op, { to, cause, patch, worker: env.worker });
  let id = op.batch_id;
  if (!id) {
    const p = await replicate.predictions.create(withVersion(op.request.input));
    id = p.id;
    move('accepted', 'created', { batch_id: id });
    move('observing', 'waiting');
  }
  const done = await replicate
    .wait({ id }, {}, async () => {
      const cur = store.get(op.id);
      if (cur.cancel && !cur.cancel_sent_at) {
        await replicate.predictions.cancel(id);
        move('cancel_requested', 'cancel intent', { cancel_sent_at: Date.now() });
        move('cancelled', 'cancel sent');
        return true;
      }
      return false;
    })
    .catch((err) => ({ status: 'failed', error: err.message }));
  if (isFinal(store.get(op.id).state)) return;
  if (done.status === 'canceled') return move('cancelled', 'prediction canceled');
  if (done.status !== 'succeeded') return move('failed', `prediction ${done.status}`);
  const items = done.output ?? [];
  move('result_collecting', 'prediction succeeded');
  move('succeeded', 'output kept', { result: { sha256: digestOf(items), items_total: items.length, items_failed: 0 } });
}

await main({
  profile: 'replicate',
  async work(store, env, signal) {
    const replicate = new Replicate({ auth: env.token, baseUrl: `${baseUrl(env, 'replicate')}/v1` });
    await runEachOpen(store, signal, isFinal, (op) => run(store, env, op, replicate));
  },
});
