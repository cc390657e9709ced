import type { Job, JobResult } from '../../contract/jobs.js';
import { stateOfView, variableValue } from '../../contract/profile-read.js';
import { variablesOf } from '../../contract/profile-template.js';
import type { Profile } from '../../contract/profiles.js';
import type { OperationRow } from '../types.js';

/**
 * Reading a profile's job view into the client's job view (`Job`), by the same templates the provider renders from
 * (contract/profile-read.ts): wherever the profile puts the id, the state (a value map or derived rules), times,
 * progress (a pair or a percentage), the result (its digest and counts where the view shows them) and the error.
 * A view whose id or state cannot be read is no job view at all (null): the step reads it as unclear.
 */

const has = (t: unknown, name: string) => variablesOf(t).some((v) => v.name === name);

function timeOf(p: Profile, v: unknown): string | null {
  if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return new Date(Date.parse(v)).toISOString();
  if (typeof v !== 'number' || !Number.isFinite(v)) return null;
  return new Date(p.times === 'unix_s' ? v * 1000 : v).toISOString();
}

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

function progressOf(p: Profile, view: unknown): Job['progress'] {
  const read = (n: string) => variableValue(p.view, view, n);
  const completed = int(read('progress.completed'));
  const total = int(read('progress.total'));
  if (completed !== null && total !== null) return { completed, total };
  const percent = read('progress.percent');
  if (typeof percent === 'number') return { completed: Math.round(percent), total: 100 };
  const fraction = read('progress.fraction');
  if (typeof fraction === 'number') return { completed: Math.round(fraction * 100), total: 100 };
  return { completed: 0, total: 0 };
}

/** Items shown inline in a view (`${result.items}`), or null where the view shows none. */
export function inlineItems(p: Profile, view: unknown): unknown[] | null {
  const items = variableValue(p.view, view, 'result.items');
  return Array.isArray(items) ? items : null;
}

/** An item that did not succeed: a `status` other than succeeded, or an `error` it carries. */
export function itemFailed(item: unknown): boolean {
  if (!item || typeof item !== 'object') return false;
  const i = item as { status?: unknown; error?: unknown };
  return (typeof i.status === 'string' && i.status !== 'succeeded') || (i.error !== undefined && i.error !== null);
}

/**
 * What a succeeded job lets the client verify: where the results are (a route's path; '' when inline), the digest
 * where the view announces one ('' otherwise), and the counts as announced or as the inline items show them.
 */
function resultOf(p: Profile, view: unknown, jobId: string): JobResult | null {
  const whole = variableValue(p.view, view, 'result') as Partial<JobResult> | null | undefined;
  const read = (n: string) => variableValue(p.view, view, `result.${n}`);
  const route = p.results.route ? `${p.prefix}${p.results.route.path.replace(/\{id\}/g, encodeURIComponent(jobId))}` : '';
  const url = (whole && typeof whole.url === 'string' ? whole.url : null) ?? (read('path') as string | undefined) ?? route;
  const items = inlineItems(p, view);
  const sha = whole?.sha256 ?? read('sha256');
  const total = int(whole?.items_total) ?? int(read('items_total')) ?? items?.length ?? null;
  const failed = int(whole?.items_failed) ?? int(read('items_failed')) ?? items?.filter(itemFailed).length ?? null;
  if (p.results.mode === 'inline' && items === null) return null;
  return {
    url: typeof url === 'string' ? url : route,
    sha256: typeof sha === 'string' ? sha : '',
    content_type: 'application/x-ndjson',
    size: int(whole?.size) ?? 0,
    // -1: the view announces no count; verification then takes the body's own.
    items_total: total ?? -1,
    items_failed: failed ?? -1,
  };
}

function errorOf(p: Profile, view: unknown, state: Job['state']): Job['error'] {
  if (state !== 'failed') return null;
  const code = variableValue(p.view, view, 'error.code');
  const message = variableValue(p.view, view, 'error.message');
  const whole = variableValue(p.view, view, 'error') as { code?: unknown; message?: unknown } | string | null | undefined;
  const c = code ?? (whole && typeof whole === 'object' ? whole.code : undefined);
  const m = message ?? (whole && typeof whole === 'object' ? whole.message : whole);
  return { code: c === undefined || c === null ? 'job_failed' : String(c), message: typeof m === 'string' ? m : 'the job failed' };
}

/** The job id a view shows. */
export function idOfView(p: Profile, view: unknown): string | null {
  const id = variableValue(p.view, view, 'id');
  return typeof id === 'string' && id !== '' ? id : null;
}

/** A view as the client's job view, or null when it shows no id or no state the profile knows. */
export function profileJob(
  p: Profile,
  view: unknown,
  rec: Pick<OperationRow, 'operation_id' | 'kind' | 'trace_id'>,
  now: number,
): Job | null {
  if (!view || typeof view !== 'object') return null;
  const jobId = idOfView(p, view);
  const state = stateOfView(p, view);
  if (jobId === null || state === undefined) return null;
  const read = (n: string) => timeOf(p, variableValue(p.view, view, n));
  const created = read('created_at') ?? new Date(now).toISOString();
  return {
    job_id: jobId,
    kind: rec.kind,
    state,
    client_ref: rec.operation_id,
    trace_id: rec.trace_id,
    created_at: created,
    // A view without an update time: when it ended, else when it was created (collect.ts reads it only once final).
    updated_at: read('updated_at') ?? read('finished_at') ?? created,
    progress: progressOf(p, view),
    cancel_requested_at: read('cancel_requested_at'),
    result: state === 'succeeded' ? resultOf(p, view, jobId) : null,
    error: errorOf(p, view, state),
  };
}

/** Whether a view can be checked against the request that made it: the fields of the create body it echoes. */
export function echoedFields(p: Profile): string[] {
  return variablesOf(p.view)
    .filter((v) => v.whole && v.name.startsWith('request.'))
    .map((v) => v.name.slice('request.'.length));
}

/** The view's echo of the client reference (`${client_ref}`), where it has one. */
export function clientRefOfView(p: Profile, view: unknown): unknown {
  return has(p.view, 'client_ref') ? variableValue(p.view, view, 'client_ref') : undefined;
}
