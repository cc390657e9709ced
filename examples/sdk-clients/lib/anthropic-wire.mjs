// The Anthropic Message Batches API through @anthropic-ai/sdk (retries off: the durable loop decides). The API
// has no metadata and no key, so a lost create is recovered by listing: the one batch created since the first
// attempt with as many requests as ours that no other operation owns; its results' custom_ids confirm it
// (docs/decisions/013-dialect-lost-create-recovery.md).
import { parseJsonl, sha256, verifyLines } from './durable.mjs';

const CLOCK_SKEW_MS = 2000;

const total = (c) => c.processing + c.succeeded + c.errored + c.canceled + c.expired;

export function anthropicWire(client) {
  return {
    create: (op, opts) => client.messages.batches.create({ requests: op.request.input.requests }, opts),
    async find(op, opts, claimed) {
      const since = (op.first_attempt_at ?? op.submitted_at) - CLOCK_SKEW_MS;
      const n = op.request.input.requests.length;
      const candidates = [];
      for await (const b of client.messages.batches.list({ limit: 100 }, opts)) {
        if (Date.parse(b.created_at) < since) break;
        if (total(b.request_counts) === n && !claimed.has(b.id)) candidates.push(b);
      }
      if (candidates.length > 1) return 'ambiguous';
      return candidates[0] ?? null;
    },
    read: (id, opts) => client.messages.batches.retrieve(id, {}, opts),
    cancel: (id, opts) => client.messages.batches.cancel(id, {}, opts),
    status: (b) => `${b.processing_status} ${JSON.stringify(b.request_counts)}`,
    phase(b) {
      if (b.processing_status === 'in_progress') return 'running';
      if (b.processing_status === 'canceling') return 'cancelling';
      const c = b.request_counts;
      // Ended: a cancel that took effect leaves canceled requests; an expiry expired ones; a failed batch has
      // nothing that succeeded.
      if (c.canceled > 0) return 'cancelled';
      if (c.expired > 0 || c.succeeded === 0) return 'failed';
      return 'succeeded';
    },
    /** The results JSONL fetched from `results_url` exactly as given (what the SDK's results() does), as bytes. */
    async results(op, opts) {
      const b = await client.messages.batches.retrieve(op.batch_id, {}, opts);
      const res = await client.get(b.results_url, { ...opts, __binaryResponse: true });
      const body = Buffer.from(await res.arrayBuffer());
      const v = verifyLines(op, parseJsonl(body), (l) => l.result?.type !== 'succeeded');
      return { ...v, sha256: sha256(body) };
    },
  };
}
