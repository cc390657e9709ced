// The durable machinery of the example clients, whatever the SDK: record before create, leases with a fencing
// token, Retry-After, recovery of a lost create by listing, confirmed cancel, verified results. A `wire` adapter
// (openai-wire.mjs, anthropic-wire.mjs) speaks the API through the official SDK with retries off: retrying a create
// is this file's decision, never the SDK's (neither API de-duplicates creates).
import { createHash } from 'node:crypto';
import { sleep } from './protocol.mjs';

// Capped exponential backoff, never denser than the judge's I8 budget (100 ms doubling to 5 s): a long batch is
// read every 5 s, and once more at the deadline that bounds the wait (see `until`).
const POLL_BASE_MS = 200;
const POLL_CAP_MS = 5000;
const MAX_CALL_MS = 5000;

/** What an SDK error means for the operation: refused for good, not done (retry later), or unknown (ambiguous). */
export function classify(err) {
  const status = typeof err?.status === 'number' ? err.status : undefined;
  const ra = Number(err?.headers?.get?.('retry-after'));
  const retryAfterMs = Number.isFinite(ra) && ra >= 0 ? ra * 1000 : undefined;
  if (status === undefined) return { kind: 'unknown', retryAfterMs, why: err?.message ?? String(err) };
  if (status === 429 || status === 409 || status === 408) return { kind: 'not_done', status, retryAfterMs, why: `${status}` };
  if (status >= 500) return { kind: 'unknown', status, retryAfterMs, why: `${status}` };
  return { kind: 'refused', status, retryAfterMs, why: `${status} ${err?.message ?? ''}`.trim() };
}

const backoff = (n) => Math.min(POLL_CAP_MS, POLL_BASE_MS * 2 ** Math.max(0, n));

/** Check a fetched results body against the batch the operation asked for: every custom_id once, no stranger. */
export function verifyLines(op, lines, isFailure) {
  const want = new Set(op.request.input.requests.map((r) => r.custom_id));
  const seen = new Set();
  let failed = 0;
  for (const l of lines) {
    if (!want.has(l.custom_id)) return { ok: false, why: `a result line for ${l.custom_id}, which this batch never asked for` };
    if (seen.has(l.custom_id)) return { ok: false, why: `two result lines for ${l.custom_id}` };
    seen.add(l.custom_id);
    if (isFailure(l)) failed++;
  }
  if (seen.size !== want.size) return { ok: false, why: `${want.size - seen.size} of ${want.size} requests have no result line` };
  return { ok: true, items_total: want.size, items_failed: failed };
}

export function parseJsonl(buf) {
  return buf
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

export const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

/** One worker process: take a due operation under a lease, do one step of it, until every operation is final. */
export async function workLoop(store, env, wire, signal) {
  while (!signal.aborted) {
    if (store.allFinal()) return;
    const op = store.take(env.worker, env.leaseMs);
    if (!op) {
      const due = store.nextDue();
      await sleep(Math.max(10, Math.min(100, (due ?? 0) - Date.now())), signal);
      continue;
    }
    try {
      await step(store, env, wire, op);
    } catch (err) {
      process.stderr.write(`client: ${op.id}: ${err?.stack ?? err}\n`);
      store.update(op, { fence: op.fence, patch: { due_at: Date.now() + 200 } });
    }
  }
}

async function step(store, env, wire, op) {
  const now = Date.now();
  const req = op.request;
  const fence = op.fence;
  const headers = { 'X-Worker-ID': env.worker, 'X-Trace-ID': op.trace_id, 'X-Lease-Token': String(fence) };
  const mine = () => store.get(op.id)?.fence === fence;
  const move = (to, cause, patch = {}) => store.update(op, { to, cause, patch, worker: env.worker, fence });
  const later = (ms, patch = {}) => store.update(op, { fence, patch: { due_at: Date.now() + ms, ...patch } });
  const createDeadline = op.submitted_at + req.create_deadline_ms;
  const resultDeadline = op.submitted_at + req.result_deadline_ms;
  const cancelDeadline = op.cancel ? op.cancel_at + op.cancel.cancel_deadline_ms : Infinity;
  const call = (ms) => ({ headers, timeout: Math.max(200, Math.min(MAX_CALL_MS, ms)) });

  switch (op.state) {
    case 'create_pending': {
      if (op.cancel && op.attempts === 0) return move('cancelled', 'cancel recorded before any create was sent');
      // A create sent and never concluded (the worker died under it) may have made a batch: find it first.
      if (op.create_open) return move('create_unknown', 'a create was under way when its worker stopped');
      if (op.attempts > 0 && op.cancel) return move('create_unknown', 'cancel after a create attempt: find the batch first');
      if (now >= createDeadline)
        return op.attempts === 0
          ? move('failed', 'create deadline passed before any create')
          : move('create_unknown', 'create deadline passed: find out whether a batch exists');
      // Durable before the request: a crash from here on means "a create may have been sent".
      store.update(op, { fence, patch: { attempts: op.attempts + 1, create_open: 1, first_attempt_at: op.first_attempt_at ?? now } });
      if (!mine()) return;
      try {
        const batch = await wire.create(op, call(createDeadline - now), mine);
        if (!batch) return;
        return move('accepted', `created ${batch.id}`, { batch_id: batch.id, create_open: 0, due_at: 0 });
      } catch (err) {
        const c = classify(err);
        if (c.kind === 'refused') return move('failed', `create refused: ${c.why}`, { create_open: 0 });
        if (c.kind === 'not_done') return later(c.retryAfterMs ?? backoff(op.attempts), { create_open: 0 });
        return move('create_unknown', `create answer lost (${c.why}): reconcile by listing`, { create_open: 0, due_at: 0 });
      }
    }
    case 'create_unknown':
      store.update(op, { fence, patch: { create_open: 0 } });
      return move('reconciliation', 'list batches to find the one a lost create may have made', { due_at: 0 });
    case 'reconciliation': {
      let found;
      try {
        found = await wire.find(op, { headers, timeout: MAX_CALL_MS }, store.claimed(op.id));
      } catch (err) {
        const c = classify(err);
        return later(c.retryAfterMs ?? backoff(op.polls), { polls: op.polls + 1 });
      }
      if (found === 'ambiguous') {
        if (now >= createDeadline)
          return move('needs_attention', 'several unclaimed batches could be the one the lost create made; a person must decide');
        return later(backoff(op.polls), { polls: op.polls + 1 });
      }
      if (found) return move('accepted', `recovered ${found.id} by listing`, { batch_id: found.id, due_at: 0 });
      if (op.cancel) return move('cancelled', 'no batch exists (listed after the lost create) and a cancel was asked');
      if (now >= createDeadline) return move('failed', 'create deadline passed; listing shows no batch was made');
      return move('create_pending', 'listing shows no batch: create again', { due_at: Date.now() + backoff(op.attempts) });
    }
    case 'accepted':
      return move('observing', 'observe the batch', { due_at: 0, polls: 0 });
    case 'observing':
    case 'cancel_requested':
    case 'cancelling': {
      if (op.state === 'observing' && op.cancel) return move('cancel_requested', 'cancel intent', { due_at: 0 });
      if (op.state === 'cancel_requested' && !op.cancel_sent_at) {
        if (!mine()) return;
        try {
          await wire.cancel(op.batch_id, call(cancelDeadline - now));
          return move('cancelling', 'cancel accepted; waiting for the batch to confirm', { cancel_sent_at: Date.now(), due_at: 0 });
        } catch (err) {
          const c = classify(err);
          // Refused (the batch already ended: OpenAI 409, Anthropic 400): read what happened instead.
          if (c.kind === 'refused' || c.status === 409)
            return store.update(op, { fence, patch: { cancel_sent_at: Date.now(), due_at: 0 } });
          if (now >= cancelDeadline) return move('cancellation_unconfirmed', `cancel not confirmed by the deadline (${c.why})`);
          return later(c.retryAfterMs ?? backoff(op.polls), { polls: op.polls + 1 });
        }
      }
      let b;
      try {
        if (!mine()) return;
        b = await wire.read(op.batch_id, call(MAX_CALL_MS));
      } catch (err) {
        const c = classify(err);
        return later(c.retryAfterMs ?? backoff(op.polls), { polls: op.polls + 1 });
      }
      const phase = wire.phase(b);
      if (phase === 'succeeded') return move('result_collecting', `batch ${wire.status(b)}`, { due_at: 0 });
      if (phase === 'failed') return move('failed', `batch ${wire.status(b)}`);
      if (phase === 'cancelled') return move('cancelled', `batch ${wire.status(b)}`);
      if (op.cancel && Date.now() >= cancelDeadline)
        return move('cancellation_unconfirmed', `batch still ${wire.status(b)} at the cancel deadline`);
      if (!op.cancel && Date.now() >= resultDeadline)
        return move('result_timed_out', `batch still ${wire.status(b)} at the result deadline`);
      // Read again after the backoff, but no later than the deadline that ends the wait.
      const until = (op.cancel ? cancelDeadline : resultDeadline) - Date.now();
      return later(Math.max(10, Math.min(backoff(op.polls), until)), { polls: op.polls + 1 });
    }
    case 'result_collecting': {
      let got;
      try {
        if (!mine()) return;
        got = await wire.results(op, call(MAX_CALL_MS));
      } catch (err) {
        const c = classify(err);
        if (c.status === 404) return move('result_unavailable', `results gone: ${c.why}`);
        if (Date.now() >= resultDeadline) return move('result_timed_out', `results not fetched by the result deadline (${c.why})`);
        return later(c.retryAfterMs ?? backoff(op.polls), { polls: op.polls + 1 });
      }
      if (!got.ok) return move('result_validation_failed', got.why);
      return move('succeeded', 'results fetched and verified', {
        result: { sha256: got.sha256, items_total: got.items_total, items_failed: got.items_failed },
      });
    }
  }
}
