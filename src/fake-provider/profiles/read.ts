import { render, whole } from '../../contract/profile-template.js';
import { resultsExpired, servedResults } from '../engine/results.js';
import type { Ctx } from '../http/context.js';
import { jsonAnswer, problem } from '../http/problem.js';
import { leanAnswer } from '../http/answer.js';
import { sha256Hex } from '../../lib/canonical-json.js';
import { jobFor, type ProfileDeps, retryAfter } from './answers.js';
import { profileKind, renderView, resultItems } from './view.js';

/** The read route: the job's view, with `Retry-After` while it is not final where the profile says so. */
export function readJob(d: ProfileDeps, c: Ctx, id: string): Response {
  const job = jobFor(d, c, id);
  if (job instanceof Response) return job;
  c.get('draft').effect = 'read';
  return jsonAnswer(c, renderView(d.profile, job, d.core.clock.now()), 200, retryAfter(d, job));
}

/** The request's parameters: its query string, and its JSON body's top-level scalars (AWS-style list calls). */
export interface Params {
  query(name: string): string | undefined;
  body(name: string): string | undefined;
}

export async function paramsOf(c: Ctx): Promise<Params> {
  let body: Record<string, unknown> = {};
  if (c.req.method !== 'GET') {
    try {
      const v = JSON.parse(await c.req.text()) as unknown;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) body = v as Record<string, unknown>;
    } catch {
      // No JSON body: no body parameters.
    }
  }
  return {
    query: (n) => c.req.query(n),
    body: (n) => {
      const v = body[n];
      return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
    },
  };
}

function pageParams(
  c: Ctx,
  ps: Params,
  page: { in: 'query' | 'body'; size_param: string; token_param: string; default_size: number; max_size: number },
) {
  const get = (n: string) => ps[page.in](n);
  const rawSize = get(page.size_param);
  const size = rawSize === undefined ? page.default_size : Number(rawSize);
  if (!Number.isInteger(size) || size < 1 || size > page.max_size)
    return {
      error: problem(c, 400, 'invalid_request', `${page.size_param} must be a whole number 1-${page.max_size}`, {
        errors: [{ path: page.size_param, message: 'out of range' }],
      }),
    };
  const token = get(page.token_param);
  if (token !== undefined && !/^c[0-9]{1,15}$/.test(token))
    return {
      error: problem(c, 400, 'invalid_request', `${page.token_param} must be a value a previous page returned`, {
        errors: [{ path: page.token_param, message: 'unknown token' }],
      }),
    };
  return { size, token: token === undefined ? undefined : Number(token.slice(1)) };
}

/** The filter's value from its query parameter (a `pattern` such as `request_id="{value}"` takes it out of an expression). */
function filterValue(raw: string, pattern?: string): string | null {
  if (!pattern) return raw;
  const [before, after] = pattern.split('{value}') as [string, string | undefined];
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^\\s*${esc(before)}(.*?)${esc(after ?? '')}\\s*$`).exec(raw);
  return m ? m[1]! : null;
}

/** The lookup route: this profile's jobs of the caller's tenant, newest first, filtered and paged as the profile says. */
export async function findJobs(d: ProfileDeps, c: Ctx): Promise<Response> {
  const f = d.profile.find!;
  const p = c.get('principal');
  const draft = c.get('draft');
  const ps = await paramsOf(c);
  const pg = pageParams(c, ps, f.page);
  if ('error' in pg) return pg.error!;
  let clientRef: string | undefined;
  let key: string | undefined;
  let idPrefix: string | undefined;
  let idContains: string | undefined;
  for (const flt of f.filters) {
    const raw = ps[flt.in](flt.param);
    if (raw === undefined) continue;
    const v = filterValue(raw, flt.pattern);
    if (v === null || v === '' || v.length > 255)
      return problem(c, 400, 'invalid_request', `${flt.param} is not a filter this API understands`, {
        errors: [{ path: flt.param, message: 'unsupported filter' }],
      });
    if (flt.by === 'client_ref') clientRef = v;
    else if (flt.by === 'idempotency_key') key = v;
    else if (flt.by === 'id_prefix') idPrefix = v;
    else idContains = v;
  }
  if (clientRef !== undefined) draft.client_ref = clientRef;
  if (key !== undefined) draft.idempotency_key = key;
  const kind = profileKind(d.profile);
  const found = [];
  let before = pg.token;
  // The engine's find knows no kinds: read pages until this profile's jobs fill one.
  for (;;) {
    const rows = d.core.jobs.find({
      tenant: p.tenant,
      client_ref: clientRef,
      subject_key: key === undefined ? undefined : { subject: p.subject, key },
      beforeSeq: before,
      limit: 200,
    });
    for (const r of rows)
      if (
        r.kind === kind &&
        (idPrefix === undefined || r.job_id.startsWith(idPrefix)) &&
        (idContains === undefined || r.job_id.includes(idContains))
      )
        found.push(r);
    if (rows.length < 200 || found.length > pg.size) break;
    before = rows[rows.length - 1]!.seq;
  }
  const page = found.slice(0, pg.size);
  const next = found.length > pg.size ? `c${page[page.length - 1]!.seq}` : null;
  draft.effect = 'read';
  draft.listed = page.map((j) => ({ job_id: j.job_id, state: j.state }));
  const now = d.core.clock.now();
  const items = page.map((j) => renderView(d.profile, j, now));
  return jsonAnswer(
    c,
    render(f.body, (n) => (n === 'items' ? items : n === 'next_page_token' ? next : undefined)),
  );
}

/** The results route: NDJSON (with a digest where the profile sends one), or a JSON page of items. */
export async function fetchResults(d: ProfileDeps, c: Ctx, id: string): Promise<Response> {
  const job = jobFor(d, c, id);
  if (job instanceof Response) return job;
  const r = d.profile.results;
  const now = d.core.clock.now();
  if (job.state !== 'succeeded' || !job.result)
    return problem(c, 409, 'job_not_succeeded', `job ${id} is ${job.state}; results exist only for succeeded jobs`, {
      job: renderView(d.profile, job, now),
    });
  if (job.behavior.one_shot_results && job.results_fetched > 0)
    return problem(c, 410, 'results_gone', 'these results could be fetched once and were already handed out');
  if (resultsExpired(job, now)) return problem(c, 410, 'results_gone', 'these results have expired');
  const draft = c.get('draft');
  if (r.format === 'ndjson' && r.mode !== 'paged') {
    d.core.engine.markResultsFetched(job);
    draft.effect = 'results_served';
    const served = servedResults(job.job_id, job.behavior);
    if (d.profile.name !== 'native') draft.served_sha256 = sha256Hex(served.body);
    const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
    if (r.digest_header) headers['content-digest'] = served.contentDigest;
    if (r.count_headers)
      Object.assign(headers, { 'x-items-total': String(job.result.items_total), 'x-items-failed': String(job.result.items_failed) });
    return leanAnswer(c, served.body, 200, headers);
  }
  const page = r.page ?? { in: 'query' as const, size_param: 'pageSize', token_param: 'pageToken', default_size: 1000, max_size: 10000 };
  const pg = pageParams(c, await paramsOf(c), page);
  if ('error' in pg) return pg.error!;
  const all = resultItems(job);
  const from = pg.token ?? 0;
  const items = all.slice(from, from + pg.size);
  const next = from + pg.size < all.length ? `c${from + pg.size}` : null;
  if (next === null) d.core.engine.markResultsFetched(job);
  draft.effect = 'results_served';
  const body = render(r.body ?? { items: whole('items'), next_page_token: whole('next_page_token?') }, (n) =>
    n === 'items' ? items : n === 'next_page_token' ? next : undefined,
  );
  draft.served_sha256 = sha256Hex(JSON.stringify(body));
  return jsonAnswer(c, body);
}
