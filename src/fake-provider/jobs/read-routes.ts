import type { ProviderCore } from '../core.js';
import { resultsExpired, servedResults } from '../engine/results.js';
import { FindJobsQuerySchema, isTerminal } from '../../contract/jobs.js';
import { viewRow, type JobRow } from '../store/jobs-repo.js';
import { jobView } from '../engine/job-view.js';
import { progressSettledAt } from '../engine/lifecycle.js';
import { leanAnswer } from '../http/answer.js';
import type { FinalAnswers } from './final-answers.js';
import { zodErrors } from '../http/body.js';
import type { Ctx } from '../http/context.js';
import { parseIdempotencyKey } from '../http/idempotency-key.js';
import { json, jsonAnswer, problem } from '../http/problem.js';

export function jobNotFound(c: Ctx, jobId: string): Response {
  return problem(c, 404, 'job_not_found', `no job ${jobId} in your tenant`);
}

export function noteJob(c: Ctx, job: Pick<JobRow, 'job_id' | 'state'>): void {
  const d = c.get('draft');
  d.job_id = job.job_id;
  d.job_state = job.state;
}

/** `GET /v1/jobs/{job_id}`; `finals` keeps the answers of final jobs (final-answers.ts). */
export function readJob(core: ProviderCore, c: Ctx, finals: FinalAnswers): Response {
  const id = c.req.param('job_id')!;
  // c.get, not c.var: Hono builds a fresh object of all variables for every `c.var`.
  const draft = c.get('draft');
  draft.job_id = id;
  // The hot route: only the columns the answer shows (jobs-repo.ts viewValuesForTenant).
  const values = core.jobs.viewValuesForTenant(id, c.get('principal').tenant);
  if (!values) return jobNotFound(c, id);
  const state = values[3];
  draft.job_state = state;
  draft.effect = 'read';
  if (!isTerminal(state)) {
    return jsonAnswer(c, core.engine.view(viewRow(values)), 200, { 'retry-after': String(core.options.pollAdviceSeconds) });
  }
  const now = core.clock.now();
  let body = finals.get(values, now);
  if (body === undefined) {
    const job = viewRow(values);
    body = JSON.stringify(jobView(job, now));
    finals.set(values, body, progressSettledAt(job));
  }
  return leanAnswer(c, body, 200, { 'content-type': 'application/json' });
}

/** `GET /v1/jobs?client_ref|idempotency_key&limit&cursor`: newest first, own tenant (own subject for a key). */
export function findJobs(core: ProviderCore, c: Ctx): Response {
  const p = c.get('principal');
  const draft = c.get('draft');
  const q = FindJobsQuerySchema.safeParse(c.req.query());
  if (!q.success) return problem(c, 400, 'invalid_request', 'invalid query parameters', { errors: zodErrors(q.error) });
  let subjectKey: { subject: string; key: string } | undefined;
  if (q.data.idempotency_key !== undefined) {
    const k = parseIdempotencyKey(q.data.idempotency_key);
    if (k.ok !== true)
      return problem(c, 400, 'invalid_request', 'invalid idempotency_key', {
        errors: [{ path: 'idempotency_key', message: 'must be 1-255 visible ASCII characters' }],
      });
    subjectKey = { subject: p.subject, key: k.key };
    draft.idempotency_key = k.key;
  }
  draft.client_ref = q.data.client_ref ?? null;
  const rows = core.jobs.find({
    tenant: p.tenant,
    client_ref: q.data.client_ref,
    subject_key: subjectKey,
    beforeSeq: q.data.cursor ? Number(q.data.cursor.slice(1)) : undefined,
    limit: q.data.limit + 1,
  });
  const page = rows.slice(0, q.data.limit);
  const next = rows.length > q.data.limit ? `c${page[page.length - 1]!.seq}` : null;
  draft.effect = 'read';
  draft.listed = page.map((j) => ({ job_id: j.job_id, state: j.state }));
  return json({ data: page.map((j) => core.engine.view(j)), next_cursor: next });
}

/** `GET /v1/jobs/{job_id}/results`: NDJSON with a Content-Digest, for succeeded jobs. */
export function fetchResults(core: ProviderCore, c: Ctx): Response {
  const id = c.req.param('job_id')!;
  c.get('draft').job_id = id;
  const job = core.jobs.getForTenant(id, c.get('principal').tenant);
  if (!job) return jobNotFound(c, id);
  noteJob(c, job);
  if (job.state !== 'succeeded' || !job.result) {
    return problem(c, 409, 'job_not_succeeded', `job ${id} is ${job.state}; results exist only for succeeded jobs`, {
      job: core.engine.view(job),
    });
  }
  const b = job.behavior;
  if (b.one_shot_results && job.results_fetched > 0)
    return problem(c, 410, 'results_gone', 'these results could be fetched once and were already handed out');
  if (resultsExpired(job, core.clock.now())) {
    return problem(c, 410, 'results_gone', 'these results have expired');
  }
  core.engine.markResultsFetched(job);
  c.get('draft').effect = 'results_served';
  const served = servedResults(job.job_id, b);
  return new Response(served.body, {
    status: 200,
    headers: {
      'content-type': 'application/x-ndjson',
      'content-digest': served.contentDigest,
      'x-items-total': String(job.result.items_total),
      'x-items-failed': String(job.result.items_failed),
    },
  });
}
