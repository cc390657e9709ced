#!/usr/bin/env node
// The obvious first client of the seed's report API (examples/profiles/reports.json): POST /v1/reports with a fresh
// Idempotency-Key on every attempt and, when the answer does not come back, simply POST again; poll until done,
// download the result. `jobproof certify --profile examples/profiles/reports.json` catches it with I1 (a lost create
// answer makes a second report). It keeps a small table so that `show` prints the record client-protocol.md asks
// for, and sends the protocol's X-Worker-ID / X-Trace-ID headers — nothing else.
import { createHash, randomUUID } from 'node:crypto';
import { isFinal, Store } from '../sdk-clients/lib/store.mjs';
import { sleep } from '../sdk-clients/lib/protocol.mjs';

const e = process.env;
const fail = (code, msg) => {
  process.stderr.write(`client: ${msg}\n`);
  process.exit(code);
};
if (!e.JOBPROOF_STATE) fail(2, 'JOBPROOF_STATE is not set');
const base = (e.JOBPROOF_BASE_URL ?? `${e.JOBPROOF_PROVIDER_URL}/profiles/reports`).replace(/\/$/, '');
const worker = e.JOBPROOF_WORKER_ID ?? 'worker-1';
const DONE = ['succeeded', 'failed', 'cancelled', 'expired'];

async function stdinJson() {
  let s = '';
  for await (const c of process.stdin) s += c;
  try {
    return JSON.parse(s);
  } catch {
    return fail(2, 'stdin is not JSON');
  }
}

async function run(store, op) {
  const call = (method, path, body, key) =>
    fetch(path.startsWith('http') ? path : `${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${e.JOBPROOF_TOKEN}`,
        'x-trace-id': op.trace_id,
        'x-worker-id': worker,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(key ? { 'idempotency-key': key } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(5000),
    });
  const move = (to, cause, patch) => store.update(op, { to, cause, patch, worker });
  let id = op.batch_id;
  while (!id) {
    try {
      const r = await call('POST', '/v1/reports', op.request.input, randomUUID());
      if (r.status === 202) id = (await r.json()).job_id;
    } catch {
      // No answer: try again (with a new key — the naive part).
    }
    if (!id) await sleep(300);
  }
  if (!op.batch_id) {
    move('accepted', 'created', { batch_id: id });
    move('observing', 'polling');
  }
  let job = await (await call('GET', `/v1/reports/${id}`)).json();
  while (!DONE.includes(job.state)) {
    const cur = store.get(op.id);
    if (cur.cancel && !cur.cancel_sent_at) {
      await call('POST', `/v1/reports/${id}/cancel`, {});
      move('cancel_requested', 'cancel intent', { cancel_sent_at: Date.now() });
      move('cancelled', 'cancel sent');
      return;
    }
    await sleep(300);
    job = await (await call('GET', `/v1/reports/${id}`)).json();
  }
  if (job.state !== 'succeeded') return move(job.state === 'cancelled' ? 'cancelled' : 'failed', `report ${job.state}`);
  move('result_collecting', 'report succeeded');
  const body = Buffer.from(await (await call('GET', job.result_url)).arrayBuffer());
  const lines = body.toString('utf8').split('\n').filter(Boolean);
  const result = {
    sha256: createHash('sha256').update(body).digest('hex'),
    items_total: lines.length,
    items_failed: lines.filter((l) => l.includes('"status":"failed"')).length,
  };
  move('succeeded', 'result downloaded', { result });
}

const [verb, arg] = process.argv.slice(2);
const store = new Store(e.JOBPROOF_STATE);
if (verb === 'submit') {
  const req = await stdinJson();
  if (!req || typeof req.operation_id !== 'string' || typeof req.input !== 'object') fail(2, 'submit wants {operation_id, kind, input, …}');
  if (store.submit(req) === 3) fail(3, `${req.operation_id} exists with a different request`);
} else if (verb === 'cancel') {
  if (!arg || !store.cancel(arg, await stdinJson())) fail(2, `unknown operation ${arg}`);
} else if (verb === 'show') {
  const rec = arg ? store.show(arg) : null;
  if (!rec) fail(2, `unknown operation ${arg}`);
  process.stdout.write(`${JSON.stringify(rec)}\n`);
} else if (verb === 'work') {
  const ac = new AbortController();
  process.on('SIGTERM', () => ac.abort());
  const running = new Map();
  while (!ac.signal.aborted) {
    const open = store.db
      .prepare('SELECT id, state FROM ops')
      .all()
      .filter((r) => !isFinal(r.state));
    if (open.length === 0 && running.size === 0) break;
    for (const { id } of open) {
      if (running.has(id)) continue;
      const p = run(store, store.get(id))
        .catch((err) => process.stderr.write(`client: ${id}: ${err?.message ?? err}\n`))
        .finally(() => running.delete(id));
      running.set(id, p);
    }
    await sleep(100, ac.signal);
  }
} else fail(2, 'usage: naive-reports.mjs submit|cancel OPERATION_ID|work|show OPERATION_ID');
process.exit(0);
