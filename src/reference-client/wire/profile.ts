import { createTemplate, idOfCreate, variableValue } from '../../contract/profile-read.js';
import { whole } from '../../contract/profile-template.js';
import type { Profile } from '../../contract/profiles.js';
import { isAmbiguous, type Answer, type CallOutcome, type CallSpec } from '../http.js';
import type { ExpectedResult } from '../types.js';
import type { WireAdapter, WireCancel, WireCreate, WireRead, WireResults, WireStep } from './adapter.js';
import { findProfileJob, listedJob } from './profile-find.js';
import { chosenId, createSpec, routeSpec } from './profile-request.js';
import { ndjsonOf, verifyItems, verifyRouteBody } from './profile-results.js';
import { inlineItems, profileJob } from './profile-view.js';
import { profileTraits } from './traits.js';

/**
 * Any API described by a profile (profiles.md), through one adapter built from the profile: its routes, where its
 * answers put the id, state, progress, result and errors, how a create is made safe to repeat (a key in a header or
 * the body, a client-chosen id, or nothing) and how a lost create is found again. The durable machinery is the
 * native one, unchanged; only the requests and the reading of answers come from the profile.
 */

const VIEW = whole('view');
/** A results page where the profile gives no shape of its own (the provider's default). */
const PAGE = { items: whole('items'), next_page_token: whole('next_page_token?') };

/** The answer, when the API gave one (with this status, when one is given). */
const answered = (o: CallOutcome, status?: number): Answer | null =>
  o.kind === 'answer' && (status === undefined || o.status === status) ? o : null;

/**
 * Whether an answer is the API's refusal for jobproof's `code`: its status (as the profile maps it), and its code
 * where the envelope shows one (`${code}` as `errors.codes` maps it, `${jobproof_code}`, or `${type}`). An envelope
 * that names no code leaves the status alone to decide.
 */
function refusal(p: Profile, o: CallOutcome, code: string, status: number): boolean {
  if (o.kind !== 'answer' || o.status !== (p.errors.statuses[code] ?? status)) return false;
  const shown = (name: string) => variableValue(p.errors.body, o.json, name);
  const api = shown('code');
  if (api !== undefined) return String(api) === String(p.errors.codes[code] ?? code);
  const own = shown('jobproof_code') ?? shown('type');
  return own === undefined || (typeof own === 'string' && (own === code || own.endsWith(`/${code}`)));
}

/**
 * Retry-After as the API bounds it (`retry_after.min`–`max`, in seconds): an advice past the documented bound is a
 * broken answer that would hold the operation past any use, one under it is raised to it. Headers stay as received.
 */
function bounded(p: Profile, o: CallOutcome): CallOutcome {
  const b = p.retry_after;
  if (!b || o.kind !== 'answer' || o.retryAfterMs === null) return o;
  const ms = Math.min(b.max * 1000, Math.max(b.min * 1000, o.retryAfterMs));
  return ms === o.retryAfterMs ? o : { ...o, retryAfterMs: ms };
}

function createOutcome(p: Profile, s: WireStep, o: CallOutcome): WireCreate {
  if (o.kind === 'no_answer' || isAmbiguous(o)) return { kind: 'ambiguous', call: o };
  if (o.status >= 200 && o.status < 300) {
    const sync = o.status === p.create.sync_status && p.create.sync_body !== undefined && o.status !== p.create.status;
    const template = sync ? (p.create.sync_body === VIEW ? p.view : p.create.sync_body) : createTemplate(p);
    const jobId = idOfCreate(p, o.json, (h) => o.headers.get(h)) ?? chosenId(p, s.rec);
    if (!jobId) return { kind: 'unreadable', call: o };
    const job = template === p.view ? profileJob(p, o.json, s.rec, s.now()) : null;
    if (job && job.job_id !== jobId) return { kind: 'unreadable', call: o };
    const replay = p.idempotency.source === 'header' || p.idempotency.source === 'body' ? p.idempotency.replay_header : undefined;
    return { kind: 'created', jobId, job, replayed: replay ? o.headers.get(replay) === 'true' : false, call: o };
  }
  // Our chosen id is taken: after an earlier attempt whose answer was lost, by our own create (the id is this operation's).
  if (p.id.source === 'body' && refusal(p, o, p.id.taken.code, p.id.taken.status) && s.rec.create_attempts > 1)
    return { kind: 'created', jobId: chosenId(p, s.rec)!, job: null, replayed: false, call: o };
  // Not executed (408, 429), or still executing under our key: the same request again after the API's wait.
  if (o.status === 408 || o.status === 429 || refusal(p, o, 'idempotency_request_in_progress', 409)) return { kind: 'not_done', call: o };
  return { kind: 'refused', call: o };
}

export function profileWire(p: Profile): WireAdapter {
  const send = async (s: WireStep, spec: Omit<CallSpec, 'traceId'>) => bounded(p, await s.send(spec));
  /** The step with its sends' Retry-After bounded, for the helpers that send on their own. */
  const bind = (s: WireStep): WireStep => ({ rec: s.rec, env: s.env, now: () => s.now(), send: (spec) => send(s, spec) });
  const readOnce = async (s: WireStep) => {
    const call = await send(s, routeSpec(p, p.read.route, 'status', s.rec.remote_job_id ?? chosenId(p, s.rec)));
    const a = answered(call, 200);
    const job = a ? profileJob(p, a.json, s.rec, s.now()) : null;
    return { call, job, gone: answered(call, 404) !== null };
  };
  const cancelRoute = p.cancel && 'route' in p.cancel ? p.cancel : null;
  // A cancel the profile says is unsupported is still asked once: the API's own 405/501 is the evidence.
  const noCancelRoute = p.cancel && 'unsupported' in p.cancel ? p.cancel.unsupported.route : null;
  return {
    ...profileTraits(p),
    async create(s) {
      return createOutcome(p, s, await send(s, createSpec(p, s.rec)));
    },
    /** The read route, or (`viaList`) the lookup route filtered to this operation where the profile has one. */
    async read(s, viaList): Promise<WireRead> {
      const listed = viaList ? await listedJob(p, bind(s)) : null;
      if (listed) return listed.job ? { kind: 'job', job: listed.job, call: listed.call } : { kind: 'unclear', call: listed.call };
      const { call, job, gone } = await readOnce(s);
      if (gone || (job && job.job_id !== s.rec.remote_job_id)) return { kind: 'gone', call };
      return job ? { kind: 'job', job, call } : { kind: 'unclear', call };
    },
    find(s, createBy) {
      return findProfileJob(p, bind(s), createBy, () => readOnce(s));
    },
    async cancel(s): Promise<WireCancel> {
      const route = cancelRoute?.route ?? noCancelRoute;
      if (!route) return { kind: 'unsupported', call: null };
      const o = await send(s, routeSpec(p, route, 'cancel', s.rec.remote_job_id));
      const a = answered(o);
      if (!a) return { kind: 'other', call: o };
      if (a.status === 405 || a.status === 501) return { kind: 'unsupported', call: a };
      if (!cancelRoute) return { kind: 'other', call: o };
      if (a.status === cancelRoute.status) {
        const view = cancelRoute.body === VIEW ? profileJob(p, a.json, s.rec, s.now()) : null;
        // An API that answers a finished job with its view (`refused: view`): the cancel lost the race if it ended.
        if (view && ['succeeded', 'failed', 'expired'].includes(view.state) && view.cancel_requested_at === null)
          return { kind: 'ended', job: view, call: a };
        return { kind: 'accepted', job: view, call: a };
      }
      const r = cancelRoute.refused;
      if (r.answer === 'view' ? a.status === r.status : refusal(p, a, r.code, r.status)) {
        const shown = r.answer === 'view' ? a.json : (a.json as { job?: unknown } | null)?.job;
        const job = profileJob(p, shown, s.rec, s.now());
        if (job) return { kind: 'ended', job, call: a };
      }
      return { kind: 'other', call: o };
    },
    async results(s, expected): Promise<WireResults> {
      return p.results.mode === 'inline' ? inlineResults(p, s, expected, readOnce) : routeResults(p, s, expected, send);
    },
  };
}

/** Inline results: the final view read again, its items verified (a view that lost them is unclear, and read again). */
async function inlineResults(
  p: Profile,
  s: WireStep,
  expected: ExpectedResult,
  readOnce: (s: WireStep) => Promise<{ call: CallOutcome; job: unknown; gone: boolean }>,
): Promise<WireResults> {
  const { call, gone } = await readOnce(s);
  const location = routeSpec(p, p.read.route, 'status', s.rec.remote_job_id).path;
  const a = answered(call, 200);
  const items = a ? inlineItems(p, a.json) : null;
  // A 200 without the items: unverifiable, so collecting reads again (collect.ts retries an answer it cannot use).
  if (!items) return { call, location, verification: null, gone };
  return { call, location, verification: verifyItems(items, ndjsonOf(items), expected), gone: false };
}

/** A results route: NDJSON in one answer, or JSON pages of items followed by their tokens. */
async function routeResults(
  p: Profile,
  s: WireStep,
  expected: ExpectedResult,
  send: (s: WireStep, spec: Omit<CallSpec, 'traceId'>) => Promise<CallOutcome>,
): Promise<WireResults> {
  const r = p.results;
  const own = expected.url.startsWith('/') && !expected.url.startsWith('//') ? expected.url : null;
  const base = routeSpec(p, r.route!, 'results', s.rec.remote_job_id);
  const spec = own ? { ...base, path: own } : base;
  const gone = (o: CallOutcome) => o.kind === 'answer' && (o.status === 410 || refusal(p, o, 'results_gone', 410));
  const first = await send(s, spec);
  const a = answered(first, 200);
  if (!a) return { call: first, location: spec.path, verification: null, gone: gone(first) };
  if (r.mode !== 'paged') return { call: first, location: spec.path, verification: verifyRouteBody(p, a, expected), gone: false };
  const items: unknown[] = [];
  let o: CallOutcome = first;
  const page = r.page ?? { in: 'query', token_param: 'pageToken' };
  // The next page: the same request with the token where the profile puts page parameters.
  const nextSpec = (token: string): Omit<CallSpec, 'traceId'> =>
    page.in === 'body'
      ? { ...spec, body: { ...(spec.body as Record<string, unknown> | undefined), [page.token_param]: token } }
      : { ...spec, path: `${spec.path}${spec.path.includes('?') ? '&' : '?'}${page.token_param}=${encodeURIComponent(token)}` };
  for (let i = 0; i < 100 && o.kind === 'answer' && o.status === 200; i++) {
    const got = variableValue(r.body ?? PAGE, o.json, 'items');
    if (!Array.isArray(got))
      return { call: o, location: spec.path, verification: { ok: false, reason: 'a results page holds no items' }, gone: false };
    items.push(...got);
    const next = variableValue(r.body ?? PAGE, o.json, 'next_page_token');
    if (typeof next !== 'string' || next === '')
      return { call: o, location: spec.path, verification: verifyItems(items, ndjsonOf(items), expected), gone: false };
    o = await send(s, nextSpec(next));
  }
  return { call: o, location: spec.path, verification: null, gone: gone(o) };
}
