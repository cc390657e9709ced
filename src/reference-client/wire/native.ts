import { z } from 'zod';
import { CreateAcceptedSchema, type Job } from '../../contract/jobs.js';
import { isAmbiguous, problemCode, type CallOutcome } from '../http.js';
import { jobOf, problemJob } from '../job-answer.js';
import { verifyResults } from '../verify-results.js';
import type { WireAdapter, WireCreate, WireLookup, WireRead, WireStep } from './adapter.js';
import { BUILT_IN_TRAITS } from './traits.js';

/**
 * jobproof's own API, /v1/jobs (provider-api.md, client-protocol.md): one idempotency key per operation on every
 * create, a lost create found by that key and then by `client_ref`, a list route that reads the same job view as
 * the status route, and results verified against the digest and counts the job announced.
 */
export function createBody(
  r: { kind: string; input: Record<string, unknown>; operation_id: string },
  webhookUrl: string | null,
): Record<string, unknown> {
  return { kind: r.kind, input: r.input, client_ref: r.operation_id, ...(webhookUrl ? { webhook_url: webhookUrl } : {}) };
}

const jobPath = (s: WireStep) => `/v1/jobs/${encodeURIComponent(s.rec.remote_job_id!)}`;
const ListSchema = z.object({ data: z.array(z.unknown()) });

/** `GET /v1/jobs?…`: the jobs of this operation (its `client_ref`) among those the query lists; null when unreadable. */
async function listJobs(s: WireStep, query: string): Promise<{ jobs: Job[] | null; call: CallOutcome }> {
  const o = await s.send({ route: 'list', method: 'GET', path: `/v1/jobs?${query}` });
  if (o.kind !== 'answer' || o.status !== 200) return { jobs: null, call: o };
  const parsed = ListSchema.safeParse(o.json);
  if (!parsed.success) return { jobs: null, call: o };
  const jobs = parsed.data.data.map(jobOf).filter((j): j is Job => j !== null && j.client_ref === s.rec.operation_id);
  return { jobs, call: o };
}

/** One job is found; several for one key or reference are a conflict; none lets the next query try. */
function judge(jobs: Job[], call: CallOutcome): WireLookup | null {
  const ids = [...new Set(jobs.map((j) => j.job_id))];
  if (ids.length > 1) return { kind: 'conflict', ids, call };
  return ids.length === 1 ? { kind: 'found', job: jobs[0]!, call } : null;
}

function createOutcome(o: CallOutcome): WireCreate {
  if (o.kind === 'no_answer' || isAmbiguous(o)) return { kind: 'ambiguous', call: o };
  if (o.status === 202 || o.status === 200) {
    // 200: the job already (a sync job, or a replay of one); 202: `{ job_id }` (CreateAccepted).
    const job = o.status === 200 ? jobOf(o.json) : null;
    const accepted = o.status === 202 ? CreateAcceptedSchema.safeParse(o.json) : null;
    const jobId = job?.job_id ?? (accepted?.success ? accepted.data.job_id : null);
    if (!jobId) return { kind: 'unreadable', call: o };
    return { kind: 'created', jobId, job, replayed: o.headers.get('idempotent-replayed') === 'true', call: o };
  }
  // Not executed (429) or still executing under our key (409): the same key again, after the provider's wait.
  if (o.status === 429 || (o.status === 409 && problemCode(o) === 'idempotency_request_in_progress')) return { kind: 'not_done', call: o };
  return { kind: 'refused', call: o };
}

export const nativeWire: WireAdapter = {
  ...BUILT_IN_TRAITS.native,
  async create(s, webhookUrl) {
    const r = s.rec;
    const o = await s.send({
      route: 'create',
      method: 'POST',
      path: '/v1/jobs',
      body: createBody(r, webhookUrl),
      idempotencyKey: r.idempotency_key,
    });
    return createOutcome(o);
  },
  /**
   * `GET /v1/jobs/{id}`, or `GET /v1/jobs?client_ref=` when `viaList` — the same Job object by another route, so one
   * broken endpoint cannot hide a finished job past a deadline. The status route stays the normal one: the provider's
   * journal records the job state of a status answer, not of a list answer, so a judge sees what a status read showed.
   */
  async read(s, viaList): Promise<WireRead> {
    const r = s.rec;
    if (viaList) {
      const l = await listJobs(s, `client_ref=${encodeURIComponent(r.operation_id)}`);
      const job = l.jobs?.find((j) => j.job_id === r.remote_job_id);
      return job ? { kind: 'job', job, call: l.call } : { kind: 'unclear', call: l.call };
    }
    const o = await s.send({ route: 'status', method: 'GET', path: jobPath(s) });
    if (o.kind === 'answer' && o.status === 404) return { kind: 'gone', call: o };
    const job = o.kind === 'answer' && o.status === 200 ? jobOf(o.json) : null;
    if (job && job.job_id !== r.remote_job_id) return { kind: 'gone', call: o };
    return job ? { kind: 'job', job, call: o } : { kind: 'unclear', call: o };
  },
  async find(s) {
    const byKey = await listJobs(s, `idempotency_key=${encodeURIComponent(s.rec.idempotency_key)}`);
    if (!byKey.jobs) return { kind: 'unclear', call: byKey.call };
    const k = judge(byKey.jobs, byKey.call);
    if (k) return k;
    const byRef = await listJobs(s, `client_ref=${encodeURIComponent(s.rec.operation_id)}`);
    if (!byRef.jobs) return { kind: 'unclear', call: byRef.call };
    return judge(byRef.jobs, byRef.call) ?? { kind: 'none', call: byRef.call };
  },
  async cancel(s, reason) {
    const o = await s.send({ route: 'cancel', method: 'POST', path: `${jobPath(s)}/cancel`, body: { reason } });
    if (o.kind === 'answer' && o.status === 202) return { kind: 'accepted', job: jobOf(o.json), call: o };
    // 409 job_terminal carries the job as it ended: the cancel lost the race.
    const ended = o.kind === 'answer' && o.status === 409 && problemCode(o) === 'job_terminal' ? problemJob(o) : null;
    return ended && o.kind === 'answer' ? { kind: 'ended', job: ended, call: o } : { kind: 'other', call: o };
  },
  /** Only ever a path on the provider we trust with our token, never an absolute URL elsewhere. */
  async results(s, expected) {
    const path = expected.url.startsWith('/') && !expected.url.startsWith('//') ? expected.url : `${jobPath(s)}/results`;
    const o = await s.send({ route: 'results', method: 'GET', path });
    return {
      call: o,
      location: path,
      verification: o.kind === 'answer' && o.status === 200 ? verifyResults(o.body, o.headers, expected) : null,
      gone: o.kind === 'answer' && o.status === 410,
    };
  },
};
