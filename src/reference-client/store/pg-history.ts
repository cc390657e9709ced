import type pg from 'pg';
import { walk, type HistoryLine } from '../state-machine.js';
import type { StoredHistoryEntry } from '../types.js';

/**
 * Append history lines after the stored ones, each carrying the fencing token it was written under (the database's
 * history fence compares it with the row's). `from` is the stored state (null only for the submit line); `known` is
 * the line count when the caller already knows it (0 on insert).
 */
export async function appendHistoryPg(
  c: pg.PoolClient,
  operationId: string,
  entries: HistoryLine[],
  from: StoredHistoryEntry['from'],
  known: number | null,
  token: number,
): Promise<void> {
  if (!entries.length) return;
  // Whichever method writes lines, they pass the transition table here.
  walk(from, entries);
  const n =
    known ?? (await c.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM history WHERE operation_id = $1', [operationId])).rows[0]!.n;
  let prev = from;
  for (const [i, e] of entries.entries()) {
    await c.query(
      'INSERT INTO history (operation_id, seq, at, actor, from_state, to_state, cause, evidence, remote_state, fencing_token) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [operationId, n + i + 1, e.at, e.actor, prev, e.to, e.cause, JSON.stringify(e.evidence), e.remote_state, token],
    );
    prev = e.to;
  }
}

export function historyFromRow(r: Record<string, string | number | null>): StoredHistoryEntry {
  return {
    at: String(r.at),
    actor: String(r.actor),
    from: r.from_state as StoredHistoryEntry['from'],
    to: r.to_state as StoredHistoryEntry['to'],
    cause: String(r.cause),
    evidence: JSON.parse(String(r.evidence)),
    remote_state: r.remote_state as StoredHistoryEntry['remote_state'],
    // The token the line was written under; the submit line (seq 1) is written under no lease.
    lease_token: Number(r.seq) === 1 ? null : r.fencing_token === null ? null : Number(r.fencing_token),
  };
}
