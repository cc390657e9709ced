import type { Job } from '../../contract/jobs.js';
import { variableValue } from '../../contract/profile-read.js';
import { getPath } from '../../contract/profile-template.js';
import type { Profile } from '../../contract/profiles.js';
import type { CallOutcome } from '../http.js';
import { claimedByOther, type WireLookup, type WireStep } from './adapter.js';
import { chosenId, clientRefOf, createBody, routeSpec } from './profile-request.js';
import { echoedFields, idOfView, profileJob } from './profile-view.js';

/**
 * After a lost create: the profile's lookup route, filtered by what identifies this operation's create — its
 * idempotency key, else its client reference, else its chosen id — or, where the route takes no filter, every page
 * of the account's jobs back to the operation's submit, each checked against the create body its view echoes. A
 * job another operation of this client owns is never adopted. Where the profile has no lookup: a client-chosen id is
 * read by the read route; a key may be replayed while creating is still allowed (`none`: the replay finds the job
 * or makes the one job); otherwise the API cannot tell, and the step waits out its deadline (`unclear`).
 */
const MAX_PAGES = 20;
/** How far before the operation's submit an unfiltered list looks back (clock skew between us and the provider). */
const LIST_WINDOW_MS = 60_000;

const ok = (o: CallOutcome) => o.kind === 'answer' && o.status === 200;

type Params = { query: [string, string][]; body: Record<string, string | number> };

/** The filter the lookup route takes for this operation, in the query or the body; null when it takes none that fits. */
function filterOf(p: Profile, s: WireStep): { param: string; in: 'query' | 'body'; value: string; by: string } | null {
  const f = p.find!;
  const value = (by: string): string | null => {
    if (by === 'idempotency_key') return p.idempotency.source === 'none' ? null : (chosenId(p, s.rec) ?? s.rec.idempotency_key);
    if (by === 'client_ref') return clientRefOf(p, s.rec);
    return chosenId(p, s.rec);
  };
  for (const by of ['idempotency_key', 'client_ref', 'id_prefix', 'id_contains']) {
    const flt = f.filters.find((x) => x.by === by);
    const v = flt ? value(by) : null;
    if (!flt || v === null) continue;
    return { param: flt.param, in: flt.in, value: flt.pattern ? flt.pattern.replace('{value}', v) : v, by };
  }
  return null;
}

/** One page's request: filter and page parameters where the profile puts them, or the next page's own URL (its path). */
function pageSpec(p: Profile, filter: ReturnType<typeof filterOf>, token: string | null, nextUrl: string | null) {
  const f = p.find!;
  if (nextUrl) {
    // Only the path and query: the page is asked of the provider we trust with our token, whatever host it named.
    const u = new URL(nextUrl, 'http://provider.invalid');
    return { ...routeSpec(p, f.route, 'list', null), path: `${u.pathname}${u.search}` };
  }
  const ps: Params = { query: [], body: {} };
  const put = (where: 'query' | 'body', k: string, v: string | number) => {
    if (where === 'query') ps.query.push([k, String(v)]);
    else ps.body[k] = v;
  };
  if (filter) put(filter.in, filter.param, filter.value);
  put(f.page.in, f.page.size_param, Math.min(f.page.max_size, 100));
  if (token) put(f.page.in, f.page.token_param, token);
  const query = ps.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return routeSpec(p, f.route, 'list', null, { query, ...(Object.keys(ps.body).length ? { body: ps.body } : {}) });
}

/** Whether a listed view is of this operation's create, as far as the view shows what was sent. */
export function echoes(p: Profile, view: unknown, sent: Record<string, unknown>): boolean {
  return echoedFields(p).every((f) => {
    const shown = variableValue(p.view, view, `request.${f}`);
    return shown === undefined || shown === null || JSON.stringify(shown) === JSON.stringify(getPath(sent, f) ?? null);
  });
}

/** Every job the lookup shows for this operation, oldest first; null when an answer could not be read. */
async function lookup(p: Profile, s: WireStep): Promise<{ jobs: Job[] | null; call: CallOutcome; keyed: boolean }> {
  const f = p.find!;
  const filter = filterOf(p, s);
  const sent = createBody(p, s.rec);
  const since = s.rec.submitted_at - LIST_WINDOW_MS;
  const jobs: Job[] = [];
  let token: string | null = null;
  let nextUrl: string | null = null;
  let call: CallOutcome | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    call = await s.send(pageSpec(p, filter, token, nextUrl));
    if (!ok(call) || call.kind !== 'answer') return { jobs: null, call, keyed: false };
    const items = variableValue(f.body, call.json, 'items');
    if (!Array.isArray(items)) return { jobs: null, call, keyed: false };
    let older = false;
    for (const view of items) {
      const job = profileJob(p, view, s.rec, s.now());
      if (!job || idOfView(p, view) === null) return { jobs: null, call, keyed: false };
      // Newest first: past the window, nothing older can be this operation's.
      if (!filter && Date.parse(job.created_at) < since) older = true;
      else if (echoes(p, view, sent) && !(await claimedByOther(s, job.job_id))) jobs.unshift(job);
    }
    const next = variableValue(f.body, call.json, 'next_page_token');
    const url = variableValue(f.body, call.json, 'next_page_url');
    const more = (v: unknown): v is string => typeof v === 'string' && v !== '';
    if (older || !(more(next) || more(url))) break;
    token = more(next) ? next : null;
    nextUrl = more(next) ? null : (url as string);
  }
  return { jobs, call: call!, keyed: filter?.by === 'idempotency_key' };
}

/** The job this operation's create made, as the profile lets the client find it (see above). */
export async function findProfileJob(
  p: Profile,
  s: WireStep,
  createBy: number,
  read: () => Promise<{ job: Job | null; call: CallOutcome; gone: boolean }>,
): Promise<WireLookup> {
  if (!p.find) {
    if (p.id.source === 'body') {
      const r = await read();
      if (r.job) return { kind: 'found', job: r.job, call: r.call };
      return r.gone ? { kind: 'none', call: r.call } : { kind: 'unclear', call: r.call };
    }
    const call: CallOutcome = { kind: 'no_answer', reason: 'network', detail: `profile ${p.name} has no lookup route` };
    const mayReplay = p.idempotency.source !== 'none' && !s.rec.cancel && s.now() < createBy;
    return mayReplay ? { kind: 'none', call } : { kind: 'unclear', call };
  }
  const l = await lookup(p, s);
  if (!l.jobs) return { kind: 'unclear', call: l.call };
  const ids = [...new Set(l.jobs.map((j) => j.job_id))];
  if (ids.length === 0) return { kind: 'none', call: l.call };
  // One key, several jobs: the provider broke its promise, and a person decides. Otherwise the oldest is the first create's.
  if (ids.length > 1 && (l.keyed || p.idempotency.source !== 'none')) return { kind: 'conflict', ids, call: l.call };
  return { kind: 'found', job: l.jobs[0]!, call: l.call };
}

/**
 * The record's job by the lookup route (`read`'s `viaList`): another route to the same view, where the profile has
 * a lookup that filters to this operation; null where it has none (the status route is read again).
 */
export async function listedJob(p: Profile, s: WireStep): Promise<{ job: Job | null; call: CallOutcome } | null> {
  if (!p.find || !filterOf(p, s)) return null;
  const l = await lookup(p, s);
  return { job: l.jobs?.find((j) => j.job_id === s.rec.remote_job_id) ?? null, call: l.call };
}
