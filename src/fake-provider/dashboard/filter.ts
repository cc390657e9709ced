import type { JournalEntry } from '../../contract/journal.js';
import { entryFacts } from './entry-facts.js';

/** Filter fields a URL may carry; every one is a case-insensitive substring match on the entry's facts. */
export const FILTER_FIELDS = ['type', 'principal', 'route', 'status', 'key', 'trace', 'worker', 'job', 'why', 'q'] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];
export type JournalFilter = Partial<Record<FilterField, string>>;

/** The filter kept in a URL's query (unknown and empty parameters ignored). */
export function parseFilter(query: Record<string, string | undefined>): JournalFilter {
  const f: JournalFilter = {};
  for (const k of FILTER_FIELDS) {
    const v = query[k]?.trim();
    if (v) f[k] = v.slice(0, 200).toLowerCase();
  }
  return f;
}

export function isEmptyFilter(f: JournalFilter): boolean {
  return Object.keys(f).length === 0;
}

export function filterQuery(f: JournalFilter): string {
  return new URLSearchParams(Object.entries(f) as Array<[string, string]>).toString();
}

/** Pure predicate: does the entry match every field of the filter? `q` searches the whole entry as JSON. */
export function matches(e: JournalEntry, f: JournalFilter): boolean {
  if (isEmptyFilter(f)) return true;
  // Cheapest first, and the whole-entry text only when asked for: a selective filter reads tens of thousands of entries.
  if (f.job !== undefined && !(('job_id' in e && e.job_id) || (e.type === 'request' && e.task_id) || '').toLowerCase().includes(f.job))
    return false;
  if (f.type !== undefined && !e.type.includes(f.type)) return false;
  const facts = entryFacts(e);
  const has = (s: string, needle: string | undefined) => needle === undefined || s.toLowerCase().includes(needle);
  return (
    has(facts.principal, f.principal) &&
    has(facts.route, f.route) &&
    has(facts.status, f.status) &&
    has(facts.key, f.key) &&
    has(facts.trace, f.trace) &&
    has(facts.worker, f.worker) &&
    has(facts.job, f.job) &&
    (f.why === undefined || has(facts.why.join(' '), f.why)) &&
    (f.q === undefined || has(JSON.stringify(e), f.q))
  );
}
