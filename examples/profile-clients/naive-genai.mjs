#!/usr/bin/env node
// The obvious first Gemini Batch client, on @google/genai with its defaults (one attempt per call, no timeout):
// `batches.create`, then `batches.get` every 500 ms until the state is final, cancel when asked, keep the inlined
// responses. Needs Node >= 22 (the SDK's engines). `jobproof certify --profile gemini-batch` catches it.
import { GoogleGenAI } from '@google/genai';
import { isFinal } from '../sdk-clients/lib/store.mjs';
import { genaiParams } from './lib/genai-body.mjs';
import { baseUrl, main, runEachOpen, sleep } from './lib/protocol.mjs';
import { digestOf } from './lib/results.mjs';

const DONE = ['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED', 'JOB_STATE_EXPIRED'];

async function run(store, env, op, ai) {
  const move = (to, cause, patch) => store.update(op, { to, cause, patch, worker: env.worker });
  let name = op.batch_id && `batches/${op.batch_id}`;
  if (!name) {
    name = (await ai.batches.create(genaiParams(op.request.input))).name;
    move('accepted', 'created', { batch_id: name.replace(/^batches\//, '') });
    move('observing', 'polling');
  }
  let b = await ai.batches.get({ name });
  while (!DONE.includes(b.state)) {
    const cur = store.get(op.id);
    if (cur.cancel && !cur.cancel_sent_at) {
      await ai.batches.cancel({ name });
      move('cancel_requested', 'cancel intent', { cancel_sent_at: Date.now() });
      move('cancelled', 'cancel sent');
      return;
    }
    await sleep(500);
    b = await ai.batches.get({ name });
  }
  if (b.state === 'JOB_STATE_CANCELLED') return move('cancelled', 'batch cancelled');
  if (b.state !== 'JOB_STATE_SUCCEEDED') return move('failed', `batch ${b.state}`);
  const items = b.dest?.inlinedResponses ?? [];
  move('result_collecting', 'batch succeeded');
  move('succeeded', 'responses kept', { result: { sha256: digestOf(items), items_total: items.length, items_failed: 0 } });
}

await main({
  profile: 'gemini-batch',
  async work(store, env, signal) {
    const ai = new GoogleGenAI({ apiKey: env.token, apiVersion: 'v1beta', httpOptions: { baseUrl: baseUrl(env, 'gemini-batch') } });
    await runEachOpen(store, signal, isFinal, (op) => run(store, env, op, ai));
  },
});
