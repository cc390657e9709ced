// Inline results, as the built-in profiles hand them out: the job's items (one JSON object per item), whose
// results body is each item's JSON on its own line. Checked before an operation is called succeeded: every item
// once, each succeeded item produced for this job (not another's), and the digest the API gives when it gives one.
import { createHash } from 'node:crypto';

export function checkItems(jobId, items, digest) {
  if (!Array.isArray(items) || items.length === 0) return { ok: false, why: 'the job succeeded without result items' };
  const seen = new Set();
  let failed = 0;
  for (const it of items) {
    if (!it || typeof it.item_id !== 'string')
      return { ok: false, why: `a result item without item_id: ${JSON.stringify(it).slice(0, 80)}` };
    if (seen.has(it.item_id)) return { ok: false, why: `two results for ${it.item_id}` };
    seen.add(it.item_id);
    if (it.status === 'failed') failed++;
    else if (it.output?.job_id !== jobId) return { ok: false, why: `${it.item_id} was produced for ${it.output?.job_id}, not ${jobId}` };
  }
  const body = items.map((i) => `${JSON.stringify(i)}\n`).join('');
  const sha256 = createHash('sha256').update(body).digest('hex');
  if (digest && digest !== sha256) return { ok: false, why: `results digest ${sha256} is not the job's ${digest}` };
  return { ok: true, sha256, items_total: items.length, items_failed: failed };
}

/** The same digest without any check: what a naive client records. */
export function digestOf(items) {
  return createHash('sha256')
    .update((items ?? []).map((i) => `${JSON.stringify(i)}\n`).join(''))
    .digest('hex');
}

/** A library error as the durable loop's classify() reads it: `status` and `headers.get`. */
export function httpError(status, headers, message) {
  const e = new Error(message);
  e.status = status;
  e.headers = { get: (h) => headers?.[h.toLowerCase()] ?? headers?.get?.(h) ?? null };
  return e;
}
