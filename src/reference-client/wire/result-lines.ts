import { sha256Hex } from '../../lib/canonical-json.js';
import type { Verification } from '../verify-results.js';

/**
 * Verifying a dialect's results against the batch the operation asked for: every `custom_id` of the submitted
 * input exactly once and no other (Anthropic's custom_ids also confirm a batch adopted by listing), failures counted
 * as the lines that did not succeed, the digest of the body as fetched.
 */
export function parseJsonl(body: Uint8Array): { lines: Record<string, unknown>[] } | { error: string } {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  const lines: Record<string, unknown>[] = [];
  const raw = text.split('\n').filter((l) => l.trim() !== '');
  for (let i = 0; i < raw.length; i++) {
    try {
      const v: unknown = JSON.parse(raw[i]!);
      if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: `line ${i + 1} is not a JSON object` };
      lines.push(v as Record<string, unknown>);
    } catch {
      return { error: `line ${i + 1} is not JSON` };
    }
  }
  return { lines };
}

export function customIdsOf(input: Record<string, unknown>): string[] {
  const reqs = Array.isArray(input.requests) ? (input.requests as { custom_id?: unknown }[]) : [];
  return reqs.map((r) => String(r.custom_id));
}

export function verifyLines(
  wanted: string[],
  lines: Record<string, unknown>[],
  failed: (l: Record<string, unknown>) => boolean,
  digestOf: Uint8Array,
): Verification {
  const want = new Set(wanted);
  const seen = new Set<string>();
  let failures = 0;
  for (const l of lines) {
    const id = typeof l.custom_id === 'string' ? l.custom_id : null;
    if (id === null || !want.has(id))
      return { ok: false, reason: `a result line for ${String(l.custom_id)}, which this batch never asked for` };
    if (seen.has(id)) return { ok: false, reason: `two result lines for ${id}` };
    seen.add(id);
    if (failed(l)) failures++;
  }
  if (seen.size !== want.size) return { ok: false, reason: `${want.size - seen.size} of ${want.size} requests have no result line` };
  return { ok: true, sha256: sha256Hex(digestOf), items_total: want.size, items_failed: failures };
}
