import type { ProviderCore } from '../core.js';
import { CancelBodySchema } from '../../contract/jobs.js';
import { readJson } from '../http/body.js';
import type { Ctx } from '../http/context.js';
import { parseIdempotencyKey } from '../http/idempotency-key.js';
import { json, problem } from '../http/problem.js';
import { jobNotFound, noteJob } from './read-routes.js';

/** `POST /v1/jobs/{job_id}/cancel`: naturally idempotent; a key, when sent, is only journalled. */
export async function cancelJob(core: ProviderCore, c: Ctx): Promise<Response> {
  const id = c.req.param('job_id')!;
  const draft = c.get('draft');
  draft.job_id = id;
  const rawKey = c.req.header('idempotency-key');
  if (rawKey !== undefined) {
    const k = parseIdempotencyKey(rawKey);
    if (k.ok === false)
      return problem(c, 400, 'invalid_request', k.message, { errors: [{ path: 'headers.idempotency-key', message: k.message }] });
    if (k.ok === true) draft.idempotency_key = k.key;
  }
  const body = await readJson(c, CancelBodySchema, true);
  if (!body.ok) return body.response;
  const job = core.jobs.getForTenant(id, c.get('principal').tenant);
  if (!job) return jobNotFound(c, id);
  const result = core.db.transaction(() => core.engine.cancel(job))();
  noteJob(c, result.job);
  if (result.kind === 'terminal') {
    return problem(c, 409, 'job_terminal', `job ${id} is already ${job.state}; nothing to cancel`, { job: core.engine.view(job) });
  }
  draft.effect = result.kind === 'accepted' ? 'cancel_requested' : 'cancel_repeated';
  return json(core.engine.view(result.job), 202, { 'retry-after': String(core.options.pollAdviceSeconds) });
}
