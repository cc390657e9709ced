import { isTerminal, type JobState } from '../../contract/jobs.js';
import type { Profile } from '../../contract/profiles.js';
import { getPath, pathsOf, whole } from '../../contract/profile-template.js';
import type { ProviderCore } from '../core.js';
import type { Ctx } from '../http/context.js';
import { problem } from '../http/problem.js';
import type { StoredAnswer } from '../store/idempotency-repo.js';
import type { JobRow } from '../store/jobs-repo.js';
import { profileKind, renderHeader, renderWithView } from './view.js';

/** What every route of one profile works with. */
export interface ProfileDeps {
  core: ProviderCore;
  profile: Profile;
}

/** The create's answer for `job` as the profile shapes it (status, headers, body or none). */
export function answerOf(d: ProfileDeps, job: JobRow, now: number): StoredAnswer {
  const p = d.profile;
  const final = isTerminal(job.state) && job.behavior.mode === 'sync';
  const template = final && p.create.sync_body !== undefined ? p.create.sync_body : p.create.body;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.create.headers)) headers[k.toLowerCase()] = renderHeader(p, v, job, now);
  if (template !== null) headers['content-type'] = 'application/json';
  return {
    status: final ? p.create.sync_status : p.create.status,
    headers,
    body: template === null ? '' : JSON.stringify(renderWithView(p, template, job, now)),
  };
}

/** The engine state an answer body showed (for the journal of a replay), read where the template puts `${state}`. */
export function stateOfAnswer(p: Profile, body: string): JobState | null {
  if (body === '' || p.create.body === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const where = p.create.body === whole('view') ? pathsOf(p.view, 'state') : pathsOf(p.create.body, 'state');
  const v = where.length ? getPath(parsed, where[0]!) : undefined;
  return typeof v === 'string' ? (p.state.values[v] ?? null) : null;
}

export function jobNotFound(c: Ctx, id: string): Response {
  return problem(c, 404, 'job_not_found', `no job ${id} in your tenant`);
}

/** The job a route names, in the caller's tenant and this profile; otherwise its 404. */
export function jobFor(d: ProfileDeps, c: Ctx, id: string): JobRow | Response {
  const draft = c.get('draft');
  draft.job_id = id;
  const job = d.core.jobs.getForTenant(id, c.get('principal').tenant);
  if (!job || job.kind !== profileKind(d.profile)) return jobNotFound(c, id);
  draft.job_state = job.state;
  return job;
}

/** `Retry-After` on a non-final answer, the provider's advice held within the profile's bounds. */
export function retryAfter(d: ProfileDeps, job: JobRow): Record<string, string> {
  const r = d.profile.retry_after;
  if (!r?.reads || isTerminal(job.state)) return {};
  return { 'retry-after': String(Math.min(r.max, Math.max(r.min, d.core.options.pollAdviceSeconds))) };
}
