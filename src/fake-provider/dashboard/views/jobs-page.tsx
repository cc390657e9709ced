import { spanFractions, type Timeline } from '../timelines.js';
import { Layout } from './layout.js';

const KNOWN = new Set(['queued', 'running', 'cancelling', 'succeeded', 'failed', 'cancelled', 'expired']);

function Spans(props: { t: Timeline; now: number }) {
  const fr = spanFractions(props.t.spans, props.now);
  return (
    <div class="spans" role="img" aria-label={props.t.spans.map((s) => s.state).join(' → ')}>
      {props.t.spans.map((s, i) => (
        <span
          class={`s-${KNOWN.has(s.state) ? s.state : 'other'}`}
          style={`flex:${fr[i]!.toFixed(4)}`}
          title={`${s.state}: ${s.from} → ${s.to ?? 'now'} (#${s.seq})`}
        >
          {s.state}
        </span>
      ))}
    </div>
  );
}

function Deliveries(props: { t: Timeline }) {
  if (props.t.deliveries.length === 0) return null;
  return (
    <table>
      <tr>
        <th>webhook event</th>
        <th>attempts</th>
        <th>flags</th>
      </tr>
      {props.t.deliveries.map((d) => (
        <tr>
          <td class="mono">
            {d.event_type}
            <br />
            {d.event_id}
          </td>
          <td>
            {d.attempts.map((a) => (
              <div>
                <a href={`/_dashboard?job=${encodeURIComponent(props.t.id)}#seq-${a.seq}`}>#{a.seq}</a> attempt {a.attempt}: {a.outcome}
                {a.status !== null ? ` ${a.status}` : ''}
                {a.error ? ` (${a.error})` : ''}
                {a.fault ? ` — fault ${a.fault.rule_id}: ${a.fault.type}` : ''}
              </div>
            ))}
          </td>
          <td>
            {d.duplicate ? <span class="badge flag">duplicate</span> : null}
            {d.reordered ? <span class="badge flag">reordered</span> : null}
          </td>
        </tr>
      ))}
    </table>
  );
}

export function JobsPage(props: { timelines: Timeline[]; now: number; lastSeq: number; truncated: boolean }) {
  const jobs = props.timelines.filter((t) => t.kind === 'job');
  const tasks = props.timelines.filter((t) => t.kind === 'task');
  const item = (t: Timeline) => (
    <details class="group" open={props.timelines.length <= 30} id={`${t.kind}-${t.id}`}>
      <summary>
        <b class="mono">{t.id}</b> <span class="muted">{t.spans.map((s) => s.state).join(' → ')}</span>
        {t.deliveries.some((d) => d.duplicate) ? <span class="badge flag">duplicate webhook</span> : null}
        {t.deliveries.some((d) => d.reordered) ? <span class="badge flag">reordered webhook</span> : null}{' '}
        <a href={`/_dashboard?job=${encodeURIComponent(t.id)}`}>journal</a>
      </summary>
      <div class="more">
        <Spans t={t} now={props.now} />
        <Deliveries t={t} />
      </div>
    </details>
  );
  return (
    <Layout title="Jobs & tasks" tab="jobs" lastSeq={props.lastSeq}>
      {props.truncated ? <p class="muted">Showing the newest jobs and tasks only.</p> : null}
      <section>
        <h2>Jobs ({jobs.length})</h2>
        {jobs.length ? jobs.map(item) : <p class="muted">No jobs yet.</p>}
      </section>
      <section>
        <h2>Tasks ({tasks.length})</h2>
        {tasks.length ? tasks.map(item) : <p class="muted">No tasks yet.</p>}
      </section>
    </Layout>
  );
}
