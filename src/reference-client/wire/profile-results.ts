import { sha256Base64, sha256Hex } from '../../lib/canonical-json.js';
import { variableValue } from '../../contract/profile-read.js';
import { whole } from '../../contract/profile-template.js';
import type { Profile } from '../../contract/profiles.js';
import type { CallOutcome } from '../http.js';
import type { ExpectedResult } from '../types.js';
import { sha256FromContentDigest, type Verification } from '../verify-results.js';
import { parseJsonl } from './result-lines.js';
import { itemFailed } from './profile-view.js';

/**
 * Verifying a profile's results against what the API lets the client check: every item a JSON object, the counts
 * the job view announced (when it announced any), the digest it announced (`result.sha256`, of the NDJSON the items
 * make), and — where the profile sends them — `Content-Digest` and `X-Items-Total`/`X-Items-Failed`. What the
 * profile does not give cannot be checked and is not pretended: the record keeps the digest of what was fetched.
 */

/** Items as the NDJSON body they make: one JSON text per line (the digest the provider announces is of these bytes). */
export function ndjsonOf(items: unknown[]): Uint8Array {
  return new TextEncoder().encode(items.map((i) => `${JSON.stringify(i)}\n`).join(''));
}

export function verifyItems(items: unknown[], body: Uint8Array, expected: ExpectedResult): Verification {
  const bad = items.findIndex((i) => !i || typeof i !== 'object' || Array.isArray(i));
  if (bad >= 0) return { ok: false, reason: `item ${bad + 1} is not a JSON object` };
  const failed = items.filter(itemFailed).length;
  const hex = sha256Hex(body);
  if (expected.sha256 !== '' && hex !== expected.sha256) return { ok: false, reason: "results do not match the job's announced digest" };
  if (expected.items_total >= 0 && items.length !== expected.items_total)
    return { ok: false, reason: `${items.length} items, job announced ${expected.items_total}` };
  if (expected.items_failed >= 0 && failed !== expected.items_failed)
    return { ok: false, reason: `${failed} failed items, job announced ${expected.items_failed}` };
  return { ok: true, sha256: hex, items_total: items.length, items_failed: failed };
}

function intHeader(headers: Headers, name: string): number | null {
  const v = headers.get(name);
  return v !== null && /^\d+$/.test(v.trim()) ? Number(v) : null;
}

/** A results route's answer (NDJSON, or a JSON page of `${items}`), verified as above. */
export function verifyRouteBody(p: Profile, o: Extract<CallOutcome, { kind: 'answer' }>, expected: ExpectedResult): Verification {
  const r = p.results;
  if (r.digest_header) {
    const digest = sha256FromContentDigest(o.headers.get('content-digest'));
    if (digest === null) return { ok: false, reason: 'missing or unreadable Content-Digest sha-256' };
    if (digest !== sha256Base64(o.body)) return { ok: false, reason: 'body does not match Content-Digest' };
  }
  let items: unknown[];
  if (r.format === 'ndjson') {
    const parsed = parseJsonl(o.body);
    if ('error' in parsed) return { ok: false, reason: parsed.error };
    items = parsed.lines;
  } else {
    const page = variableValue(r.body ?? { items: whole('items') }, o.json, 'items');
    if (!Array.isArray(page)) return { ok: false, reason: 'the results answer holds no items' };
    items = page;
  }
  const v = verifyItems(items, r.format === 'ndjson' ? o.body : ndjsonOf(items), expected);
  if (!v.ok || !r.count_headers) return v;
  if (intHeader(o.headers, 'x-items-total') !== v.items_total) return { ok: false, reason: 'X-Items-Total disagrees with the body' };
  if (intHeader(o.headers, 'x-items-failed') !== v.items_failed) return { ok: false, reason: 'X-Items-Failed disagrees with the body' };
  return v;
}
