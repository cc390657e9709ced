import type pg from 'pg';
import { isAllowedTransition } from '../../lib/client-protocol.js';
import type { StoredHistoryEntry } from '../types.js';

type Entry = Omit<StoredHistoryEntry, 'from'> & { from?: StoredHistoryEntry['from'] };

/**
 * Append history lines after the stored ones, each carrying the fencing token it was written under (the database's
 * history fence compares it with the row's). `known` is the line count when the caller already knows it (0 on insert).
 */
export async function appendHistoryPg(
  c: pg.PoolClient,
  operationId: string,
  entries: Entry[],
  from: StoredHistoryEntry['from'],
  known: number | null,
  token: number,
): Promise<void> {
  if (!entries.length) return;
  const n = known ?? (await c.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM history WHERE operation_id = $1', [operationId])).rows[0]!.n;
  let prev = n === 0 ? null : from;
  for (const [i, e] of entries.entries()) {
    // Defence in depth: the state machine already refused anything else, but the store must never persist it.
    if (!isAllowedTransition(prev, e.to)) throw new Error(`refusing to store transition ${prev} -> ${e.to}`);
    await c.query(
      'INSERT INTO history (operation_id, seq, at, actor, from_state, to_state, cause, evidence, remote_state, fencing_token) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [operationId, n + i + 1, e.at, e.actor, prev, e.to, e.cause, JSON.stringify(e.evidence), e.remote_state, token],
    );
    prev = e.to;
  }
}

export function historyFromRow(r: Record<string, string | null>): StoredHistoryEntry {
  return {
    at: r.at!,
    actor: r.actor!,
    from: r.from_state as StoredHistoryEntry['from'],
    to: r.to_state as StoredHistoryEntry['to'],
    cause: r.cause!,
    evidence: JSON.parse(r.evidence!),
    remote_state: r.remote_state as StoredHistoryEntry['remote_state'],
  };
}
