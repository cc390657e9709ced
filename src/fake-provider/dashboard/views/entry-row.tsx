import type { JournalEntry } from '../../../contract/journal.js';
import { curlOf, type Exchange } from '../capture.js';
import { entryFacts } from '../entry-facts.js';

/** Bodies shown inline are cut here; "view full" serves the rest as plain text. */
export const INLINE_BODY = 2_000;

function Body(props: { text: string; href: string }) {
  if (!props.text) return <p class="muted">(no body)</p>;
  const cut = props.text.length > INLINE_BODY;
  return (
    <>
      <pre>{cut ? `${props.text.slice(0, INLINE_BODY)}…` : props.text}</pre>
      {cut ? (
        <a href={props.href} target="_blank" rel="noopener">
          view full ({props.text.length.toLocaleString('en')} characters)
        </a>
      ) : null}
    </>
  );
}

function Headers(props: { headers: Array<[string, string]> }) {
  return <pre>{props.headers.map(([k, v]) => `${k}: ${v}`).join('\n')}</pre>;
}

function ExchangeView(props: { x: Exchange }) {
  const x = props.x;
  const base = `/_dashboard/exchange/${encodeURIComponent(x.request_id)}`;
  return (
    <div>
      <p>
        <button type="button" class="copy-curl" data-curl={curlOf(x)}>
          copy as curl
        </button>
      </p>
      <h4>Request headers</h4>
      <Headers headers={x.request_headers} />
      <h4>Request body</h4>
      <Body text={x.request_body} href={`${base}/request`} />
      <h4>Answer {x.status}</h4>
      <Headers headers={x.response_headers} />
      <Body text={x.response_body} href={`${base}/response`} />
    </div>
  );
}

/** The expanded part of a row: the whole entry, and the exchange (headers, bodies, curl) when it was captured. */
export function EntryDetail(props: { e: JournalEntry; exchange?: Exchange }) {
  const e = props.e;
  return (
    <>
      <pre>{JSON.stringify(e, null, 2)}</pre>
      {props.exchange ? (
        <ExchangeView x={props.exchange} />
      ) : e.type === 'request' ? (
        <p class="muted">Headers and bodies are kept only while the dashboard is open; this request came before.</p>
      ) : null}
    </>
  );
}

/**
 * One journal entry: a summary line (grid) that expands to its detail. The detail is fetched when the row is opened
 * (a link without script), so a page of 1,000 rows or a stream at 1,000 entries/s renders only summaries.
 */
export function EntryRow(props: { e: JournalEntry }) {
  const f = entryFacts(props.e);
  const e = props.e;
  return (
    <details
      class={`row tone-${f.tone}`}
      id={`seq-${f.seq}`}
      data-seq={String(f.seq)}
      data-job={f.job}
      data-key={e.type === 'request' ? f.key : ''}
    >
      <summary>
        <span class="mono">#{f.seq}</span>
        <span class="mono" title={f.at}>
          {f.at.slice(11, 23)}
        </span>
        <span>{f.principal}</span>
        <span class="mono" title={f.route}>
          {f.route}
        </span>
        <span class="st">{f.status}</span>
        <span class="mono" title={f.key}>
          {f.key}
        </span>
        <span class="mono" title={f.trace}>
          {f.trace}
        </span>
        <span class="mono">{f.worker}</span>
        <span class="why">
          {f.why.map((w) => (
            <span class="badge">{w}</span>
          ))}
        </span>
      </summary>
      <div class="more" data-src={`/_dashboard/entry/${f.seq}?fragment=1`}>
        <a href={`/_dashboard/entry/${f.seq}`}>open entry #{f.seq}</a>
      </div>
    </details>
  );
}

export function ColumnHeads() {
  return (
    <div class="cols">
      <span>seq</span>
      <span>time</span>
      <span>principal</span>
      <span>route</span>
      <span>status</span>
      <span>idempotency key</span>
      <span>trace id</span>
      <span>worker</span>
      <span>why</span>
    </div>
  );
}
