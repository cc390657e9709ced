#!/usr/bin/env node
// The obvious first OpenAI Batch client, on the official SDK with its defaults (maxRetries 2, no idempotency key,
// 10-minute timeout): upload the JSONL, create the batch, poll until done, download the output. It keeps the
// batch id in a small table so that `show` can print the record client-protocol.md asks for, and sends the
// protocol's X-Worker-ID / X-Trace-ID headers — nothing else. `jobproof certify --dialect openai` catches it
// (docs/sdk-clients.md says with which invariants).
import OpenAI, { toFile } from 'openai';
import { createHash } from 'node:crypto';
import { main, sleep } from './lib/protocol.mjs';
import { isFinal } from './lib/store.mjs';

const DONE = ['completed', 'failed', 'expired', 'cancelled'];

async function run(store, env, op, client) {
  const h = { headers: { 'X-Trace-ID': op.trace_id } };
  const move = (to, cause, patch) => store.update(op, { to, cause, patch, worker: env.worker });
  let id = op.batch_id;
  if (!id) {
    const { endpoint, requests } = op.request.input;
    const jsonl = requests.map((r) => JSON.stringify(r)).join('\n') + '\n';
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl), 'batch.jsonl'), purpose: 'batch' }, h);
    const batch = await client.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' }, h);
    id = batch.id;
    move('accepted', 'created', { batch_id: id });
    move('observing', 'polling');
  }
  let b = await client.batches.retrieve(id, h);
  while (!DONE.includes(b.status)) {
    const cur = store.get(op.id);
    if (cur.cancel && !cur.cancel_sent_at) {
      await client.batches.cancel(id, h);
      move('cancel_requested', 'cancel intent', { cancel_sent_at: Date.now() });
      move('cancelled', 'cancel sent');
      return;
    }
    await sleep(500);
    b = await client.batches.retrieve(id, h);
  }
  if (b.status !== 'completed') return move(b.status === 'cancelled' ? 'cancelled' : 'failed', `batch ${b.status}`);
  move('result_collecting', 'batch completed');
  const body = Buffer.from(await (await client.files.content(b.output_file_id, h)).arrayBuffer());
  const result = {
    sha256: createHash('sha256').update(body).digest('hex'),
    items_total: b.request_counts.total,
    items_failed: b.request_counts.failed,
  };
  move('succeeded', 'results downloaded', { result });
}

await main({
  dialect: 'openai',
  async work(store, env, signal) {
    const client = new OpenAI({ apiKey: env.token, baseURL: `${env.root}/openai/v1`, defaultHeaders: { 'X-Worker-ID': env.worker } });
    const running = new Map();
    while (!signal.aborted) {
      const open = store.db
        .prepare('SELECT id, state FROM ops')
        .all()
        .filter((r) => !isFinal(r.state));
      if (open.length === 0 && running.size === 0) return;
      for (const { id } of open) {
        if (running.has(id)) continue;
        const p = run(store, env, store.get(id), client)
          .catch((err) => process.stderr.write(`client: ${id}: ${err?.message ?? err}\n`))
          .finally(() => running.delete(id));
        running.set(id, p);
      }
      await sleep(100, signal);
    }
  },
});
