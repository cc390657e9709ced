import type { JournalEntry } from '../../../contract/journal.js';
import { FILTER_FIELDS, filterQuery, type JournalFilter } from '../filter.js';
import type { JournalPage } from '../paging.js';
import { ColumnHeads, EntryRow } from './entry-row.js';
import { Layout } from './layout.js';
import { LIVE_SCRIPT } from './live-script.js';

export type Grouping = 'none' | 'job' | 'key';

const LABELS: Record<string, string> = {
  type: 'type',
  principal: 'principal',
  route: 'route',
  status: 'status',
  key: 'idempotency key',
  trace: 'trace id',
  worker: 'worker',
  job: 'job / task',
  why: 'why',
  q: 'anywhere',
};

export function groupOf(e: JournalEntry, by: Grouping): string {
  if (by === 'job') return 'job_id' in e && e.job_id ? e.job_id : e.type === 'request' && e.task_id ? e.task_id : '(no job)';
  if (by === 'key') return e.type === 'request' && e.idempotency_key ? e.idempotency_key : '(no key)';
  return '';
}

/** Entries in display order (oldest first) bucketed by job or key, buckets in order of first appearance. */
function groups(entries: JournalEntry[], by: Grouping): Array<[string, JournalEntry[]]> {
  const m = new Map<string, JournalEntry[]>();
  for (const e of entries) {
    const g = groupOf(e, by);
    m.set(g, [...(m.get(g) ?? []), e]);
  }
  return [...m];
}

export function JournalPageView(props: { page: JournalPage; filter: JournalFilter; group: Grouping; size: number }) {
  const { page, filter, group } = props;
  const shown = [...page.entries].reverse();
  const base = filterQuery(filter);
  const href = (extra: Record<string, string>) =>
    `/_dashboard?${new URLSearchParams({ ...Object.fromEntries(new URLSearchParams(base)), ...(group !== 'none' ? { group } : {}), ...(props.size !== 100 ? { size: String(props.size) } : {}), ...extra })}`;
  const row = (e: JournalEntry) => <EntryRow e={e} />;
  const isLive = page.newer === null;
  const since = page.entries[0]?.seq ?? page.lastSeq;
  return (
    <Layout title="Journal" tab="journal" lastSeq={page.lastSeq} script={LIVE_SCRIPT}>
      <form class="filters" method="get" action="/_dashboard">
        {FILTER_FIELDS.map((k) => (
          <label>
            {LABELS[k]}
            <input name={k} value={filter[k] ?? ''} size={k === 'q' ? 16 : 10} />
          </label>
        ))}
        <label>
          group by
          <select name="group">
            {(['none', 'job', 'key'] as const).map((g) => (
              <option value={g} selected={g === group}>
                {g}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">filter</button>
        <a href="/_dashboard">clear</a>
        <span class="live">
          <label style="flex-direction:row;gap:.2rem">
            <input type="checkbox" id="autoscroll" checked /> auto-scroll
          </label>
          <button type="button" id="pause" disabled={!isLive}>
            pause
          </button>
          <span id="live-state">{isLive ? 'connecting…' : 'not live (older page)'}</span>
        </span>
      </form>
      <div class="pager">
        {page.older !== null ? <a href={href({ before: String(page.older) })}>← older</a> : <span>start of journal</span>}
        <span>
          {page.entries.length} entries shown · {page.scanned.toLocaleString('en')} read
        </span>
        {page.newer !== null ? <a href={href({ after: String(page.newer) })}>newer →</a> : null}
        {page.newer !== null ? <a href={href({})}>newest ⇥</a> : null}
      </div>
      <ColumnHeads />
      <div
        id="entries"
        data-live={isLive ? '1' : '0'}
        data-since={String(isLive ? page.lastSeq : since)}
        data-group={group}
        data-stream={`/_dashboard/stream?${base}${base ? '&' : ''}group=${group}`}
      >
        {group === 'none'
          ? shown.map(row)
          : groups(shown, group).map(([g, es]) => (
              <details class="group" open data-group={g}>
                <summary>
                  <b class="mono">{g}</b> <span class="muted">{es.length} entries</span>
                  {es.some((e) => e.type === 'request' && e.delivery === 'lost') ? <span class="badge flag">answer lost</span> : null}
                </summary>
                {es.map(row)}
              </details>
            ))}
      </div>
      {shown.length === 0 ? (
        <p class="muted" id="empty">
          No journal entries{base ? ' match this filter' : ' yet'}.
        </p>
      ) : null}
    </Layout>
  );
}
