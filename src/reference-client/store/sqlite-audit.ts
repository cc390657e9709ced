import type Database from 'better-sqlite3';
import { chain, GENESIS_HASH } from '../audit.js';
import type { AuditInput } from '../types.js';

/** The store's cached statements: `q(sql)` prepares once per connection. */
export type Prepare = (sql: string) => Database.Statement;

/** The newest link of the audit chain, or null before the first entry. */
export function auditHead(q: Prepare): { seq: number; hash: string } | null {
  return (q('SELECT seq, hash FROM audit_head WHERE id = 1').get() as { seq: number; hash: string } | undefined) ?? null;
}

/** Chain `entries` onto the head and move the head, inside the caller's transaction (decision 002: tamper-evident). */
export function appendAudit(q: Prepare, entries: AuditInput[]): void {
  if (!entries.length) return;
  const rows = chain(auditHead(q) ?? { seq: 0, hash: GENESIS_HASH }, entries);
  const insert = q(
    'INSERT INTO audit (seq, at, actor, kind, operation_id, detail, prev_hash, hash) VALUES (@seq, @at, @actor, @kind, @operation_id, @detail, @prev_hash, @hash)',
  );
  for (const r of rows) insert.run(r);
  const last = rows[rows.length - 1]!;
  q('INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash').run(
    last.seq,
    last.hash,
  );
}
