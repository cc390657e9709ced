import { z } from 'zod';
import type { ProviderCore } from '../../core.js';
import { CancelBodySchema, isTerminal } from '../../model/job.js';
import type { JobRow } from '../../store/jobs-repo.js';
import { guarded } from '../guarded.js';
import { readJson, zodErrors } from '../body.js';
import type { Ctx } from '../context.js';
import { parseIdempotencyKey } from '../idempotency-key.js';
import { json, problem } from '../problem.js';
import { servedResults } from '../../engine/results.js';

function notFound(c: Ctx, jobId: string): Response {
  return problem(c, 404, 'job_not_found', `no job ${jobId} in your tenant`);
}

function noteJob(c: Ctx, job: Pick<JobRow, 'job_id' | 'state'>): void {
  const d = c.get('draft');
  d.job_id = job.job_id;
  d.job_state = job.state;
}

export function readJob(core: ProviderCore, c: Ctx): Promise<Response> {
  return guarded(core, c, 'status', (p) => {
    const id = c.req.param('job_id')!;
    c.get('draft').job_id = id;
    const job = core.jobs.viewForTenant(id, p.tenant);
    if (!job) return notFound(c, id);
    noteJob(c, job);
    c.get('draft').effect = 'read';
    const headers: Record<string, string> = isTerminal(job.state) ? {} : { 'retry-after': String(core.options.pollAdviceSeconds) };
    return json(core.engine.view(job), 200, headers);
  });
}

const FindQuerySchema = z
  .object({
    client_ref: z.string().min(1).max(200).optional(),
    idempotency_key: z.string().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().regex(/^c[0-9]+$/, 'cursor must be a value returned as next_cursor').optional(),
  });

export function findJobs(core: ProviderCore, c: Ctx): Promise<Response> {
  return guarded(core, c, 'list', (p) => {
    const q = FindQuerySchema.safeParse(c.req.query());
    if (!q.success) return problem(c, 400, 'invalid_request', 'invalid query parameters', { errors: zodErrors(q.error) });
    let subjectKey: { subject: string; key: string } | undefined;
    if (q.data.idempotency_key !== undefined) {
      const k = parseIdempotencyKey(q.data.idempotency_key);
      if (k.ok !== true) return problem(c, 400, 'invalid_request', 'invalid idempotency_key', { errors: [{ path: 'idempotency_key', message: 'must be 1-255 visible ASCII characters' }] });
      subjectKey = { subject: p.subject, key: k.key };
      c.get('draft').idempotency_key = k.key;
    }
    c.get('draft').client_ref = q.data.client_ref ?? null;
    const rows = core.jobs.find({
      tenant: p.tenant,
      client_ref: q.data.client_ref,
      subject_key: subjectKey,
      beforeSeq: q.data.cursor ? Number(q.data.cursor.slice(1)) : undefined,
      limit: q.data.limit + 1,
    });
    const page = rows.slice(0, q.data.limit);
    const next = rows.length > q.data.limit ? `c${page[page.length - 1]!.seq}` : null;
    c.get('draft').effect = 'read';
    c.get('draft').listed = page.map((j) => ({ job_id: j.job_id, state: j.state }));
    return json({ data: page.map((j) => core.engine.view(j)), next_cursor: next });
  });
}

export function cancelJob(core: ProviderCore, c: Ctx): Promise<Response> {
  return guarded(core, c, 'cancel', async (p) => {
    const id = c.req.param('job_id')!;
    c.get('draft').job_id = id;
    const rawKey = c.req.header('idempotency-key');
    if (rawKey !== undefined) {
      const k = parseIdempotencyKey(rawKey);
      if (k.ok === false) return problem(c, 400, 'invalid_request', k.message, { errors: [{ path: 'headers.idempotency-key', message: k.message }] });
      if (k.ok === true) c.get('draft').idempotency_key = k.key;
    }
    const body = await readJson(c, CancelBodySchema, true);
    if (!body.ok) return body.response;
    const job = core.jobs.getForTenant(id, p.tenant);
    if (!job) return notFound(c, id);
    const result = core.db.transaction(() => core.engine.cancel(job))();
    noteJob(c, result.job);
    if (result.kind === 'terminal') {
      return problem(c, 409, 'job_terminal', `job ${id} is already ${job.state}; nothing to cancel`, { job: core.engine.view(job) });
    }
    c.get('draft').effect = result.kind === 'accepted' ? 'cancel_requested' : 'cancel_repeated';
    return json(core.engine.view(result.job), 202, { 'retry-after': String(core.options.pollAdviceSeconds) });
  });
}

export function fetchResults(core: ProviderCore, c: Ctx): Promise<Response> {
  return guarded(core, c, 'results', (p) => {
    const id = c.req.param('job_id')!;
    c.get('draft').job_id = id;
    const job = core.jobs.getForTenant(id, p.tenant);
    if (!job) return notFound(c, id);
    noteJob(c, job);
    if (job.state !== 'succeeded' || !job.result) {
      return problem(c, 409, 'job_not_succeeded', `job ${id} is ${job.state}; results exist only for succeeded jobs`, { job: core.engine.view(job) });
    }
    const b = job.behavior;
    if (b.one_shot_results && job.results_fetched > 0) return problem(c, 410, 'results_gone', 'these results could be fetched once and were already handed out');
    if (b.results_ttl_ms !== null && job.finished_at !== null && core.clock.now() >= job.finished_at + b.results_ttl_ms) {
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
  });
}
