import type { Job } from '../contract/jobs.js';
import type { CallOutcome } from './http.js';
import { jobOf } from './job-answer.js';
import type { OpStep } from './op-step.js';
import { listJobs } from './lookup.js';

/**
 * Read our job's state: `GET /v1/jobs/{id}`, or `GET /v1/jobs?client_ref=` when `viaList` — the same Job object by
 * another route, so one broken endpoint cannot hide a finished job from us past a deadline. The status route stays
 * the normal one: the provider's journal records the job state of a status answer, not of a list answer, so a judge
 * can only see what a status read showed.
 */
export type JobRead =
  | { kind: 'job'; job: Job; call: CallOutcome }
  | { kind: 'gone'; call: CallOutcome }
  | { kind: 'unclear'; call: CallOutcome };

export async function readJob(s: OpStep, viaList: boolean): Promise<JobRead> {
  const r = s.rec;
  if (s.env.wire) return s.env.wire.read(s);
  if (viaList) {
    const l = await listJobs(s, `client_ref=${encodeURIComponent(r.operation_id)}`);
    const job = l.jobs?.find((j) => j.job_id === r.remote_job_id);
    return job ? { kind: 'job', job, call: l.call } : { kind: 'unclear', call: l.call };
  }
  const o = await s.send({ route: 'status', method: 'GET', path: `/v1/jobs/${encodeURIComponent(r.remote_job_id!)}` });
  if (o.kind === 'answer' && o.status === 404) return { kind: 'gone', call: o };
  const job = o.kind === 'answer' && o.status === 200 ? jobOf(o.json) : null;
  if (job && job.job_id !== r.remote_job_id) return { kind: 'gone', call: o };
  return job ? { kind: 'job', job, call: o } : { kind: 'unclear', call: o };
}
