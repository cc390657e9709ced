import { canonicalJson, sha256Hex } from '../lib/canonical-json.js';
import { isoTime } from '../lib/clock.js';
import type { AuditInput, AuditRow } from './types.js';

/**
 * The audit log is a hash chain: each line's hash covers its own content and the previous line's hash, and the
 * store keeps the head (last seq + hash) beside it. Editing a line breaks its hash; inserting or deleting one breaks
 * the link of the next; cutting the tail disagrees with the head.
 */
export const GENESIS_HASH = 'sha256:' + '0'.repeat(64);

/** Keys that must never be written to the audit log, whatever a caller passes in `detail`. */
const SECRET_KEYS = /^(authorization|token|secret|webhook_secret|password|cookie)$/i;

export function scrub(detail: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (SECRET_KEYS.test(k)) continue;
    out[k] = v !== null && typeof v === 'object' && !Array.isArray(v) ? scrub(v as Record<string, unknown>) : v;
  }
  return out;
}

export function auditHash(prevHash: string, row: Omit<AuditRow, 'hash' | 'prev_hash'>): string {
  const content = canonicalJson({
    seq: row.seq,
    at: row.at,
    actor: row.actor,
    kind: row.kind,
    operation_id: row.operation_id,
    detail: row.detail,
  });
  return `sha256:${sha256Hex(`${prevHash}\n${content}`)}`;
}

/** Turn inputs into chained rows after the given head. */
export function chain(head: { seq: number; hash: string }, entries: AuditInput[]): AuditRow[] {
  const rows: AuditRow[] = [];
  let { seq, hash } = head;
  for (const e of entries) {
    seq += 1;
    const base = {
      seq,
      at: isoTime(e.at),
      actor: e.actor,
      kind: e.kind,
      operation_id: e.operation_id,
      detail: canonicalJson(scrub(e.detail)),
    };
    const next = auditHash(hash, base);
    rows.push({ ...base, prev_hash: hash, hash: next });
    hash = next;
  }
  return rows;
}

export interface AuditVerdict {
  ok: boolean;
  entries: number;
  /** First broken line and why, when not ok. */
  problem?: { seq: number | null; reason: string };
}

export function verifyChain(rows: AuditRow[], head: { seq: number; hash: string } | null): AuditVerdict {
  let prev = GENESIS_HASH;
  let expectSeq = 1;
  for (const row of rows) {
    if (row.seq !== expectSeq) return { ok: false, entries: rows.length, problem: { seq: row.seq, reason: `expected seq ${expectSeq}` } };
    if (row.prev_hash !== prev)
      return { ok: false, entries: rows.length, problem: { seq: row.seq, reason: 'link to previous line broken' } };
    if (auditHash(prev, row) !== row.hash)
      return { ok: false, entries: rows.length, problem: { seq: row.seq, reason: 'content does not match its hash' } };
    prev = row.hash;
    expectSeq += 1;
  }
  const last = rows.length ? rows[rows.length - 1]! : null;
  const headSeq = head?.seq ?? 0;
  const headHash = head?.hash ?? GENESIS_HASH;
  if ((last?.seq ?? 0) !== headSeq || (last?.hash ?? GENESIS_HASH) !== headHash) {
    return {
      ok: false,
      entries: rows.length,
      problem: { seq: last?.seq ?? null, reason: 'chain does not end at the recorded head (lines cut or added)' },
    };
  }
  return { ok: true, entries: rows.length };
}
