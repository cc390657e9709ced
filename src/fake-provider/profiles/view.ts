import { isoTime } from '../../lib/clock.js';
import { isTerminal, type JobState } from '../../contract/jobs.js';
import type { Profile } from '../../contract/profiles.js';
import { getPath, render, renderString, type Resolve } from '../../contract/profile-template.js';
import { progressAt } from '../engine/lifecycle.js';
import { renderResults } from '../engine/results.js';
import type { JobRow } from '../store/jobs-repo.js';

/** What a profile job keeps in the engine's `input` column: the create body as sent and the origin it came in at. */
export interface ProfileInput {
  profile: string;
  origin: string;
  request: Record<string, unknown>;
}

export function profileKind(p: Profile): string {
  return `profile.${p.name}`;
}

export function inputOf(job: Pick<JobRow, 'input'>): ProfileInput {
  return job.input as unknown as ProfileInput;
}

/** The API's value for each engine state: the first value mapped to it, else `serve_as`. */
export function stateValues(p: Profile): Record<JobState, string> {
  const out: Partial<Record<JobState, string>> = { ...p.state.serve_as };
  for (const [value, state] of Object.entries(p.state.values)) out[state] ??= value;
  return out as Record<JobState, string>;
}

/** A route's path for a job, from the server root (`/profiles/reports/v1/reports/rep_1`). */
export function routePath(p: Profile, template: string, id: string): string {
  return `${p.prefix}${template.replace(/\{id\}/g, encodeURIComponent(id))}`;
}

function time(p: Profile, ms: number | null): string | number | null {
  if (ms === null) return null;
  return p.times === 'iso' ? isoTime(ms) : p.times === 'unix_s' ? Math.floor(ms / 1000) : ms;
}

export function resultItems(job: Pick<JobRow, 'job_id' | 'behavior'>): unknown[] {
  return renderResults(job.job_id, job.behavior)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as unknown);
}

const STATE_ERRORS: Partial<Record<JobState, { code: string; message: string }>> = {
  cancelled: { code: 'cancelled', message: 'the job was cancelled' },
  expired: { code: 'expired', message: 'the job expired before it finished' },
};

/** The variables of a job's view (contract/profile-vars.ts VIEW_VARIABLES), at `now`. */
export function viewResolver(p: Profile, job: JobRow, now: number, states = stateValues(p)): Resolve {
  const input = inputOf(job);
  const base = `${input.origin}${p.prefix}`;
  const succeeded = job.state === 'succeeded' && job.result !== null;
  const resultsPath = p.results.route ? routePath(p, p.results.route.path, job.job_id) : null;
  const progress = progressAt(job, now);
  const errorOverride = p.job_error?.states[job.state];
  const engineError = job.error ?? STATE_ERRORS[job.state] ?? null;
  const vars: Record<string, () => unknown> = {
    id: () => job.job_id,
    state: () => states[job.state],
    done: () => isTerminal(job.state),
    kind: () => (p.create.kind ? getPath(input.request, p.create.kind) : undefined) ?? p.name,
    client_ref: () => job.client_ref,
    trace_id: () => job.trace_id,
    created_at: () => time(p, job.created_at),
    updated_at: () => time(p, job.updated_at),
    finished_at: () => time(p, job.finished_at),
    cancel_requested_at: () => time(p, job.cancel_requested_at),
    'progress.completed': () => progress.completed,
    'progress.total': () => progress.total,
    'progress.percent': () => (progress.total === 0 ? 0 : Math.floor((100 * progress.completed) / progress.total)),
    'progress.fraction': () => (progress.total === 0 ? 0 : progress.completed / progress.total),
    result: () => (succeeded ? { ...job.result, url: resultsPath } : null),
    'result.url': () => (succeeded && resultsPath ? `${input.origin}${resultsPath}` : null),
    'result.path': () => (succeeded ? resultsPath : null),
    'result.sha256': () => (succeeded ? job.result!.sha256 : null),
    'result.size': () => (succeeded ? job.result!.size : null),
    'result.items': () => (succeeded ? resultItems(job) : null),
    'result.items_total': () => (succeeded ? job.result!.items_total : null),
    'result.items_failed': () => (succeeded ? job.result!.items_failed : null),
    'error.code': () => errorOverride?.code ?? engineError?.code ?? null,
    'error.message': () => errorOverride?.message ?? engineError?.message ?? null,
    base: () => base,
    'url.read': () => `${input.origin}${routePath(p, p.read.route.path, job.job_id)}`,
    'url.cancel': () => (p.cancel && 'route' in p.cancel ? `${input.origin}${routePath(p, p.cancel.route.path, job.job_id)}` : null),
    'path.read': () => routePath(p, p.read.route.path, job.job_id),
  };
  const resolve: Resolve = (name) => {
    if (name === 'error') return p.job_error && errorOverride !== undefined ? render(p.job_error.template, resolve) : null;
    if (name.startsWith('request.')) return getPath(input.request, name.slice('request.'.length));
    return vars[name]?.();
  };
  return resolve;
}

/** The job as the profile's view shows it. */
export function renderView(p: Profile, job: JobRow, now: number): unknown {
  return render(p.view, viewResolver(p, job, now));
}

/** A template over a job with `${view}` available (create and cancel answers). */
export function renderWithView(p: Profile, template: unknown, job: JobRow, now: number): unknown {
  const r = viewResolver(p, job, now);
  return render(template, (name) => (name === 'view' ? render(p.view, r) : r(name)));
}

export function renderHeader(p: Profile, template: string, job: JobRow, now: number): string {
  return renderString(template, viewResolver(p, job, now));
}
