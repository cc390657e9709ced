import type { JournalEntry } from '../../contract/journal.js';
import { matches, type JournalFilter } from './filter.js';

/** The journal as the dashboard reads it: entries after a sequence number, oldest first (the journal repo's API). */
export interface JournalReader {
  since(seq: number, limit?: number): JournalEntry[];
  lastSeq(): number;
}

export interface JournalPage {
  /** Newest first. */
  entries: JournalEntry[];
  /** Pass as `before` for the next (older) page; null when the start of the journal was reached. */
  older: number | null;
  /** Pass as `after` for the previous (newer) page; null on the newest page. */
  newer: number | null;
  /** Entries read to fill the page (a selective filter reads more). */
  scanned: number;
  lastSeq: number;
}

/** A filtered page never reads more than this many entries, so one request stays quick on a huge journal. */
export const SCAN_BUDGET = 20_000;

/**
 * One page of the journal, newest first: `before` pages backwards from a sequence number, `after` forwards. The
 * journal is read in windows of sequence numbers, growing while the filter is selective; gaps in the sequence are fine.
 */
export function journalPage(
  reader: JournalReader,
  filter: JournalFilter,
  opts: { before?: number; after?: number; size: number },
): JournalPage {
  const last = reader.lastSeq();
  const size = opts.size;
  let scanned = 0;
  if (opts.after !== undefined) {
    const found: JournalEntry[] = [];
    let cursor = opts.after;
    while (found.length <= size && scanned < SCAN_BUDGET) {
      const batch = reader.since(cursor, 2_000);
      if (batch.length === 0) break;
      scanned += batch.length;
      for (const e of batch) if (matches(e, filter)) found.push(e);
      cursor = batch[batch.length - 1]!.seq;
    }
    const page = found.slice(0, size);
    const reachedEnd = found.length <= size && cursor >= last;
    return {
      entries: page.reverse(),
      older: page.length ? page[page.length - 1]!.seq : opts.after + 1,
      newer: reachedEnd ? null : (page[0]?.seq ?? cursor),
      scanned,
      lastSeq: last,
    };
  }
  const before = Math.min(opts.before ?? last + 1, last + 1);
  const found: JournalEntry[] = [];
  let end = before; // exclusive
  let window = size * 2;
  while (found.length <= size && end > 1 && scanned < SCAN_BUDGET) {
    const start = Math.max(0, end - 1 - window);
    const batch = reader.since(start, end - 1 - start).filter((e) => e.seq < end);
    scanned += batch.length;
    for (let i = batch.length - 1; i >= 0; i--) if (matches(batch[i]!, filter)) found.push(batch[i]!);
    end = start + 1;
    window = Math.min(window * 2, 20_000);
  }
  const page = found.slice(0, size);
  const more = found.length > size || (end > 1 && scanned >= SCAN_BUDGET);
  const older = more ? (found.length > size ? page[page.length - 1]!.seq : end) : null;
  return { entries: page, older, newer: before > last ? null : (page[0]?.seq ?? before - 1), scanned, lastSeq: last };
}
