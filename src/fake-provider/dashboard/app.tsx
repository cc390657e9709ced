import { Hono, type Context } from 'hono';
import { stream as honoStream, streamSSE } from 'hono/streaming';
import type { ProviderControl } from '../control.js';
import type { ProviderCore } from '../core.js';
import type { JournalEntry } from '../../contract/journal.js';
import { ExchangeLog } from './capture.js';
import { applyForm, type FormName } from './control-forms.js';
import { matches, parseFilter } from './filter.js';
import { controlTokenOk, Csrf, hostAllowed } from './guards.js';
import { journalPage } from './paging.js';
import { timelines } from './timelines.js';
import { EntryDetail, EntryRow } from './views/entry-row.js';
import { Layout } from './views/layout.js';
import { LIVE_SCRIPT } from './views/live-script.js';
import { FaultsPage } from './views/faults-page.js';
import { groupOf, JournalPageView, type Grouping } from './views/journal-page.js';
import { JobsPage } from './views/jobs-page.js';

export interface DashboardOptions {
  /** Host names served besides loopback names (the address `serve --host` binds, a name the operator uses). */
  hosts?: string[];
  /** Catalog scenarios the Faults page offers (it switches through the provider's `scenarioLookup`). */
  scenarios?: { names: string[] };
  /** How often the live stream looks for new journal entries. */
  pollMs?: number;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** Jobs page: timelines come from the newest this-many journal entries. */
const JOBS_WINDOW = 20_000;

/**
 * `/_dashboard`: the running provider, live. Its own sub-app, mounted ahead of the journal middleware (app.ts), so
 * its traffic is never journalled and never meets a fault.
 */
export function dashboardApp(
  core: ProviderCore,
  control: ProviderControl,
  opts: DashboardOptions = {},
): { app: Hono; exchanges: ExchangeLog } {
  const app = new Hono();
  const exchanges = new ExchangeLog();
  const csrf = new Csrf();
  const pollMs = opts.pollMs ?? 100;
  const hosts = opts.hosts ?? [];

  app.use('*', async (c, next) => {
    // A Request built in-process carries no Host header; its URL's host is what a server would have derived from one.
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!hostAllowed(host, hosts)) {
      return c.text(
        `Host '${host}' is not served by the dashboard (DNS-rebinding guard); use localhost or start serve with --host <name>.\n`,
        421,
      );
    }
    exchanges.touch();
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!c.res.headers.has(k)) c.res.headers.set(k, v);
  });

  app.get('/', (c) => {
    const q = c.req.query();
    const filter = parseFilter(q);
    const group: Grouping = q.group === 'job' || q.group === 'key' ? q.group : 'none';
    const size = Math.min(1000, Math.max(10, Number(q.size) || 100));
    const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);
    const page = journalPage(core.journal, filter, { before: num(q.before), after: num(q.after), size });
    return c.html(<JournalPageView page={page} filter={filter} group={group} size={size} />);
  });

  app.get('/stream', (c) => {
    const filter = parseFilter(c.req.query());
    const group: Grouping = c.req.query('group') === 'job' || c.req.query('group') === 'key' ? (c.req.query('group') as Grouping) : 'none';
    const from = c.req.header('last-event-id') ?? c.req.query('since');
    let cursor = from !== undefined && /^\d+$/.test(from) ? Number(from) : core.journal.lastSeq();
    return streamSSE(c, async (sse) => {
      const release = exchanges.hold();
      let open = true;
      sse.onAbort(() => {
        open = false;
      });
      let quiet = 0;
      try {
        await sse.writeSSE({ event: 'hello', data: JSON.stringify({ since: cursor }), retry: 1000 });
        while (open && !core.isClosed()) {
          const batch: JournalEntry[] = core.journal.since(cursor, 500);
          for (const e of batch) {
            cursor = e.seq;
            if (!matches(e, filter)) continue;
            const html = String(await (<EntryRow e={e} />).toString());
            await sse.writeSSE({
              event: 'entry',
              id: String(e.seq),
              data: JSON.stringify({ seq: e.seq, at: e.at, group: groupOf(e, group), html }),
            });
          }
          if (batch.length < 500) {
            await sse.sleep(pollMs);
            quiet += pollMs;
            if (quiet >= 15_000) {
              quiet = 0;
              // Moves Last-Event-ID past entries the filter skipped, and keeps proxies from closing an idle stream.
              await sse.writeSSE({ event: 'cursor', id: String(cursor), data: '' });
            }
          }
        }
      } finally {
        release();
      }
    });
  });

  app.get('/entry/:seq{[0-9]+}', (c) => {
    const seq = Number(c.req.param('seq'));
    const e = core.journal.since(seq - 1, 1)[0];
    if (!e || e.seq !== seq) return c.text(`no journal entry #${seq}\n`, 404);
    const detail = <EntryDetail e={e} exchange={e.type === 'request' ? exchanges.get(e.request_id) : undefined} />;
    if (c.req.query('fragment') === '1') return c.html(detail);
    return c.html(
      <Layout title={`Entry #${seq}`} tab="journal" lastSeq={core.journal.lastSeq()} script={LIVE_SCRIPT}>
        <p>
          <a href={`/_dashboard?before=${seq + 1}#seq-${seq}`}>← in the journal</a>
        </p>
        {detail}
      </Layout>,
    );
  });

  app.get('/exchange/:id/:part', (c) => {
    const x = exchanges.get(c.req.param('id'));
    const part = c.req.param('part');
    if (!x || (part !== 'request' && part !== 'response'))
      return c.text('not kept (the dashboard keeps the newest 2,000 exchanges)\n', 404);
    return c.body(part === 'request' ? x.request_body : x.response_body, 200, { 'content-type': 'text/plain; charset=utf-8' });
  });

  app.get('/jobs', (c) => {
    const last = core.journal.lastSeq();
    const from = Math.max(0, last - JOBS_WINDOW);
    const tls = timelines(core.journal.since(from, JOBS_WINDOW)).reverse();
    return c.html(
      <JobsPage timelines={tls.slice(0, 500)} now={core.clock.now()} lastSeq={last} truncated={from > 0 || tls.length > 500} />,
    );
  });

  const faultsPage = (
    c: Context,
    message?: { ok: boolean; text: string; form: string },
    draft?: { plan?: string; behavior?: string },
    status = 200,
  ) =>
    c.html(
      <FaultsPage
        plan={control.faults()}
        behavior={control.behavior()}
        scenarios={opts.scenarios?.names ?? []}
        csrf={csrf.token}
        lastSeq={core.journal.lastSeq()}
        message={message}
        draft={draft}
      />,
      status as 200,
    );

  app.get('/faults', (c) => faultsPage(c));

  app.post('/faults/:form{scenario|plan|behavior|reset}', async (c) => {
    const form = c.req.param('form') as FormName;
    const fields = await c.req.parseBody();
    const refused =
      csrf.check(c, fields) ??
      (controlTokenOk(fields.control_token, core.tokens.control_token) ? null : 'wrong control token (the one `serve` printed at start)');
    if (refused) return faultsPage(c, { ok: false, text: refused, form }, undefined, 403);
    const out = applyForm(control, form, fields);
    if (form === 'reset' && out.ok) exchanges.clear();
    return faultsPage(c, { ok: out.ok, text: out.text, form }, out.draft === undefined ? undefined : { [form]: out.draft }, out.status);
  });

  const exportJournal = (c: Context, ndjson: boolean) => {
    const filter = parseFilter(c.req.query());
    c.header('content-type', ndjson ? 'application/x-ndjson' : 'application/json');
    c.header('content-disposition', `attachment; filename="jobproof-journal.${ndjson ? 'ndjson' : 'json'}"`);
    return honoStream(c, async (s) => {
      let cursor = 0;
      let first = true;
      if (!ndjson) await s.write('[\n');
      for (;;) {
        const batch = core.journal.since(cursor, 5_000);
        if (batch.length === 0) break;
        cursor = batch[batch.length - 1]!.seq;
        const lines = batch.filter((e) => matches(e, filter)).map((e) => JSON.stringify(e));
        if (lines.length === 0) continue;
        await s.write(ndjson ? `${lines.join('\n')}\n` : `${first ? '' : ',\n'}${lines.join(',\n')}`);
        first = false;
      }
      if (!ndjson) await s.write('\n]\n');
    });
  };
  app.get('/export.json', (c) => exportJournal(c, false));
  app.get('/export.ndjson', (c) => exportJournal(c, true));

  app.all('*', (c) => (c.req.path === '/_dashboard/' ? c.redirect('/_dashboard', 308) : c.text('not found\n', 404)));
  return { app, exchanges };
}
