#!/usr/bin/env node
// The obvious first Anthropic Message Batches client, on the official SDK with its defaults (maxRetries 2, no
// idempotency key): create the batch, poll until `ended`, download the results. It keeps the batch id in a small
// table so that `show` can print the record client-protocol.md asks for, and sends the protocol's X-Worker-ID /
// X-Trace-ID headers — nothing else. `jobproof certify --dialect anthropic` catches it (docs/sdk-clients.md).
import Anthropic from '@anthropic-ai/sdk';
import { createHash } from 'node:crypto';
import { main, sleep } from './lib/protocol.mjs';
import { isFinal } from './lib/store.mjs';

async function run(store, env, op, client) {
  const h = { headers: { 'X-Trace-ID': op.trace_id } };
  const move = (to, cause, patch) => store.update(op, { to, cause, patch, worker: env.worker });
  let id = op.batch_id;
  if (!id) {
    const batch = await client.messages.batches.create({ requests: op.request.input.requests }, h);
    id = batch.id;
    move('accepted', 'created', { batch_id: id });
    move('observing', 'polling');
  }
  let b = await client.messages.batches.retrieve(id, {}, h);
  while (b.processing_status !== 'ended') {
    const cur = store.get(op.id);
    if (cur.cancel && !cur.cancel_sent_at) {
      await client.messages.batches.cancel(id, {}, h);
      move('cancel_requested', 'cancel intent', { cancel_sent_at: Date.now() });
      move('cancelled', 'cancel sent');
      return;
    }
    await sleep(500);
    b = await client.messages.batches.retrieve(id, {}, h);
  }
  move('result_collecting', 'batch ended');
  // The SDK's results() is a stream of parsed lines; the record wants the digest of the body as fetched, so the
  // body is fetched the way results() does it (results_url, as given), then parsed.
  const body = Buffer.from(await (await client.get(b.results_url, { ...h, __binaryResponse: true })).arrayBuffer());
  const c = b.request_counts;
  const result = {
    sha256: createHash('sha256').update(body).digest('hex'),
    items_total: c.succeeded + c.errored + c.canceled + c.expired,
    items_failed: c.errored + c.canceled + c.expired,
  };
  move('succeeded', 'results downloaded', { result });
}

await main({
  dialect: 'anthropic',
  async work(store, env, signal) {
    const client = new Anthropic({ apiKey: env.token, baseURL: `${env.root}/anthropic`, defaultHeaders: { 'X-Worker-ID': env.worker } });
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
