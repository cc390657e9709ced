import { walk, type HistoryLine } from '../state-machine.js';
import type { StoredHistoryEntry } from '../types.js';
import type { Prepare } from './sqlite-audit.js';

/**
 * Append lines after the stored ones, inside the caller's transaction; `from` is the stored state (null only for the
 * submit line). Whichever method writes lines, they pass the transition table here.
 */
export function appendHistory(q: Prepare, operationId: string, lines: HistoryLine[], from: StoredHistoryEntry['from']): void {
  if (!lines.length) return;
  walk(from, lines);
  const { n } = q('SELECT COUNT(*) AS n FROM history WHERE operation_id = ?').get(operationId) as { n: number };
  const insert = q(
    'INSERT INTO history (operation_id, seq, at, actor, from_state, to_state, cause, evidence, remote_state, lease_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  let prev = from;
  lines.forEach((e, i) => {
    insert.run(
      operationId,
      n + i + 1,
      e.at,
      e.actor,
      prev,
      e.to,
      e.cause,
      JSON.stringify(e.evidence),
      e.remote_state,
      e.lease_token ?? null,
    );
    prev = e.to;
  });
}

export function historyFromDb(r: Record<string, string | null>): StoredHistoryEntry {
  return {
    at: r.at!,
    actor: r.actor!,
    from: r.from_state as StoredHistoryEntry['from'],
    to: r.to_state as StoredHistoryEntry['to'],
    cause: r.cause!,
    evidence: JSON.parse(r.evidence!),
    remote_state: r.remote_state as StoredHistoryEntry['remote_state'],
    lease_token: (r.lease_token as unknown as number | null) ?? null,
  };
}
