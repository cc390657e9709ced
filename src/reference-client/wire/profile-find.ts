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

/** The filter the lookup route takes for this operation, as `param=value`; null when it takes none that fits. */
function filterQuery(p: Profile, s: WireStep): { query: string; by: string } | null {
  const f = p.find!;
  const value = (by: string): string | null => {
    if (by === 'idempotency_key') return p.idempotency.source === 'none' ? null : (chosenId(p, s.rec) ?? s.rec.idempotency_key);
    if (by === 'client_ref') return clientRefOf(p, s.rec);
    return chosenId(p, s.rec);
  };
  for (const by of ['idempotency_key', 'client_ref', 'id_prefix']) {
    const flt = f.filters.find((x) => x.by === by);
    const v = flt ? value(by) : null;
    if (!flt || v === null) continue;
    const expr = flt.pattern ? flt.pattern.replace('{value}', v) : v;
    return { query: `${encodeURIComponent(flt.param)}=${encodeURIComponent(expr)}`, by };
  }
  return null;
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
  const filter = filterQuery(p, s);
  const sent = createBody(p, s.rec);
  const since = s.rec.submitted_at - LIST_WINDOW_MS;
  const size = Math.min(f.page.max_size, 100);
  const jobs: Job[] = [];
  let token: string | null = null;
  let call: CallOutcome | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = [
      filter?.query,
      `${encodeURIComponent(f.page.size_param)}=${size}`,
      token ? `${f.page.token_param}=${encodeURIComponent(token)}` : null,
    ];
    call = await s.send(routeSpec(p, f.route, 'list', null, { query: q.filter(Boolean).join('&') }));
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
    if (older || typeof next !== 'string' || next === '') break;
    token = next;
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
  if (!p.find || !filterQuery(p, s)) return null;
  const l = await lookup(p, s);
  return { job: l.jobs?.find((j) => j.job_id === s.rec.remote_job_id) ?? null, call: l.call };
}
