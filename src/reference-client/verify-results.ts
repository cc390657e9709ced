import { sha256Base64, sha256Hex } from '../lib/canonical-json.js';
import { ResultItemSchema } from '../contract/jobs.js';
import type { ExpectedResult } from './types.js';

/**
 * A results body is accepted only when three independent things agree: the transport digest (RFC 9530
 * Content-Digest), the digest the job announced (`result.sha256`), and the body's own content (every line a valid
 * item, counts as announced). Any one alone can be wrong without the others noticing.
 */
export type Verification = { ok: true; sha256: string; items_total: number; items_failed: number } | { ok: false; reason: string };

/** `sha-256=:<base64>:` out of a Content-Digest field that may list several algorithms. */
export function sha256FromContentDigest(header: string | null): string | null {
  if (!header) return null;
  for (const member of header.split(',')) {
    const m = /^\s*sha-256\s*=\s*:([A-Za-z0-9+/=]+):\s*$/i.exec(member);
    if (m) return m[1]!;
  }
  return null;
}

function intHeader(headers: Headers, name: string): number | null {
  const v = headers.get(name);
  return v !== null && /^\d+$/.test(v.trim()) ? Number(v) : null;
}

export function verifyResults(body: Uint8Array, headers: Headers, expected: ExpectedResult): Verification {
  const digest = sha256FromContentDigest(headers.get('content-digest'));
  if (digest === null) return { ok: false, reason: 'missing or unreadable Content-Digest sha-256' };
  if (digest !== sha256Base64(body)) return { ok: false, reason: 'body does not match Content-Digest' };
  const hex = sha256Hex(body);
  if (hex !== expected.sha256) return { ok: false, reason: "body does not match the job's result.sha256" };

  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let failed = 0;
  for (let i = 0; i < lines.length; i++) {
    let value: unknown;
    try {
      value = JSON.parse(lines[i]!);
    } catch {
      return { ok: false, reason: `line ${i + 1} is not JSON` };
    }
    const item = ResultItemSchema.safeParse(value);
    if (!item.success) return { ok: false, reason: `line ${i + 1} is not a valid result item (error row)` };
    if (item.data.status === 'failed') failed += 1;
  }
  if (lines.length !== expected.items_total) return { ok: false, reason: `${lines.length} items, job announced ${expected.items_total}` };
  if (failed !== expected.items_failed) return { ok: false, reason: `${failed} failed items, job announced ${expected.items_failed}` };
  const hTotal = intHeader(headers, 'x-items-total');
  const hFailed = intHeader(headers, 'x-items-failed');
  if (hTotal !== null && hTotal !== lines.length) return { ok: false, reason: 'X-Items-Total disagrees with the body' };
  if (hFailed !== null && hFailed !== failed) return { ok: false, reason: 'X-Items-Failed disagrees with the body' };
  return { ok: true, sha256: hex, items_total: lines.length, items_failed: failed };
}
