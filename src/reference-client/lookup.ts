import { z } from 'zod';
import type { Job } from '../contract/jobs.js';
import type { CallOutcome } from './http.js';
import { jobOf } from './job-answer.js';
import type { OpStep } from './op-step.js';

/** What the provider shows for our key, then our client_ref: one job, none, several (a conflict), or no clear answer. */
export type Lookup =
  | { kind: 'found'; job: Job; call: CallOutcome }
  | { kind: 'none'; call: CallOutcome }
  | { kind: 'conflict'; ids: string[]; call: CallOutcome }
  | { kind: 'unclear'; call: CallOutcome };

const ListSchema = z.object({ data: z.array(z.unknown()) });

export async function listJobs(s: OpStep, query: string): Promise<{ jobs: Job[] | null; call: CallOutcome }> {
  const o = await s.send({ route: 'list', method: 'GET', path: `/v1/jobs?${query}` });
  if (o.kind !== 'answer' || o.status !== 200) return { jobs: null, call: o };
  const parsed = ListSchema.safeParse(o.json);
  if (!parsed.success) return { jobs: null, call: o };
  const jobs = parsed.data.data.map(jobOf).filter((j): j is Job => j !== null && j.client_ref === s.rec.operation_id);
  return { jobs, call: o };
}

function judge(jobs: Job[], call: CallOutcome): Lookup | null {
  const ids = [...new Set(jobs.map((j) => j.job_id))];
  if (ids.length > 1) return { kind: 'conflict', ids, call };
  return ids.length === 1 ? { kind: 'found', job: jobs[0]!, call } : null;
}

export async function lookupJob(s: OpStep): Promise<Lookup> {
  if (s.env.wire) return s.env.wire.find(s, Math.min(s.rec.create_deadline_at, s.rec.result_deadline_at));
  const byKey = await listJobs(s, `idempotency_key=${encodeURIComponent(s.rec.idempotency_key)}`);
  if (!byKey.jobs) return { kind: 'unclear', call: byKey.call };
  const k = judge(byKey.jobs, byKey.call);
  if (k) return k;
  const byRef = await listJobs(s, `client_ref=${encodeURIComponent(s.rec.operation_id)}`);
  if (!byRef.jobs) return { kind: 'unclear', call: byRef.call };
  return judge(byRef.jobs, byRef.call) ?? { kind: 'none', call: byRef.call };
}
