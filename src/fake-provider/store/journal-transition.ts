import { isoTime } from '../../lib/clock.js';
import type { JournalEntry, TransitionEntry } from '../../contract/journal.js';
import { encodeEntry, rowValues, wholeMs } from './journal-codec.js';

/** A transition as the job engine knows it: its time as epoch milliseconds, not yet ISO text. */
export type TransitionFacts = Omit<TransitionEntry, 'seq' | 'type' | 'at'> & { at: number };

/** The entry `facts` stand for (what `decodeRow` gives back). */
export function transitionEntry(seq: number, f: TransitionFacts): JournalEntry {
  return { type: 'transition', at: isoTime(f.at), job_id: f.job_id, tenant: f.tenant, from: f.from, to: f.to, cause: f.cause, seq };
}

/**
 * `rowValues(encodeEntry(transitionEntry(seq, f)))` without the entry: no ISO text formatted and parsed back, no walk
 * over its keys. A create journals three transitions (created, running, succeeded); the property test in
 * test/fake-provider holds the two equal.
 */
export function encodeTransition(seq: number, f: TransitionFacts): unknown[] {
  if (!wholeMs(f.at)) return rowValues(encodeEntry(transitionEntry(seq, f)));
  const extra = JSON.stringify({ from: f.from, to: f.to, cause: f.cause });
  // JOURNAL_COLUMNS order: seq, type, at, then request columns (NULL), tenant at 8, job_id at 15, extra last.
  return [
    seq,
    'transition',
    f.at,
    null,
    null,
    null,
    null,
    null,
    f.tenant,
    null,
    null,
    null,
    null,
    null,
    null,
    f.job_id,
    null,
    null,
    null,
    null,
    null,
    null,
    extra,
  ];
}
