import { resultsExpired } from '../../engine/results.js';
import { sha256Hex } from '../../../lib/canonical-json.js';
import { readJson, zodErrors, type Parsed } from '../../http/body.js';
import type { Ctx } from '../../http/context.js';
import { described, unexecuted } from '../../http/seam/index.js';
import { json, problem } from '../../http/problem.js';
import { behaviorFor } from '../../../contract/behavior.js';
import { isTerminal } from '../../../contract/jobs.js';
import type { JobRow } from '../../store/jobs-repo.js';
import { DIALECT_MAX_BODY_BYTES, principal, type DialectDeps } from '../shared.js';
import type { BatchRow, NewBatch } from '../store.js';
import { CreateBatchSchema, ListQuerySchema, paramsProblem, type CreateBatchBody } from './model.js';
import { renderResults } from './results.js';
import { anthropicBatchView } from './view.js';
import { atomically } from '../../store/atomically.js';

export const ANTHROPIC_KIND = 'anthropic.message_batch';

/** `results_url` points back at this server as the client reached it (the Host it used). */
function origin(c: Ctx): string {
  return new URL(c.req.url).origin;
}

function view({ core }: DialectDeps, c: Ctx, job: JobRow, batch: BatchRow): Record<string, unknown> {
  return anthropicBatchView(job, batch, core.clock.now(), origin(c));
}

function lookup({ core, repo }: DialectDeps, c: Ctx, tenant: string): { job: JobRow; batch: BatchRow } | Response {
  const id = c.req.param('batch_id')!;
  c.get('draft').job_id = id;
  const batch = repo.batch(id, tenant, 'anthropic');
  const job = batch && core.jobs.getForTenant(id, tenant);
  if (!batch || !job) return problem(c, 404, 'batch_not_found', `No message batch with id '${id}'.`);
  c.get('draft').job_state = job.state;
  return { job, batch };
}

/** The create's `custom_id`s go to the journal before the fault decision: the judge links batches to operations by them. */
export async function describeCreate(c: Ctx): Promise<Parsed<CreateBatchBody>> {
  const body = await readJson(c, CreateBatchSchema, false, DIALECT_MAX_BODY_BYTES);
  if (body.ok) c.get('draft').custom_ids = body.value.requests.map((r) => r.custom_id);
  return body;
}

/** `POST /v1/messages/batches`. No idempotency: every create that executes makes a new batch. */
export function createBatch(deps: DialectDeps, c: Ctx): Response {
  const { core, repo } = deps;
  const draft = c.get('draft');
  const p = principal(c);
  const body = described(c, describeCreate);
  if (!body.ok) return unexecuted(body.response);
  const requests = body.value.requests.map((r) => ({ custom_id: r.custom_id, body: r.params }));
  const base = behaviorFor(core.behaviors.get(), ANTHROPIC_KIND);
  const behavior = { ...base, items: requests.length, items_failed: Math.min(base.items_failed, requests.length) };
  const batchId = core.ids('msgbatch');
  const row: NewBatch = {
    batch_id: batchId,
    dialect: 'anthropic',
    tenant: p.tenant,
    endpoint: null,
    input_file_id: null,
    completion_window: null,
    metadata: null,
    requests,
    invalid_lines: requests.flatMap((r, i) => (paramsProblem(r.body) ? [i + 1] : [])),
    output_file_id: null,
    error_file_id: null,
    errors: null,
  };
  // The turn's transaction (store/group-commit.ts): the answer waits for its commit like a native create's.
  core.group.join();
  const job = atomically(core.db, () => {
    const j = core.engine.create(p, { kind: ANTHROPIC_KIND, input: { dialect: 'anthropic', requests: requests.length } }, behavior, {
      key: null,
      trace_id: c.get('traceId'),
      id: batchId,
    });
    repo.insertBatch(row);
    return j;
  });
  core.engine.scheduleCreated();
  draft.effect = 'created';
  draft.job_id = job.job_id;
  draft.job_state = job.state;
  return json(view(deps, c, job, repo.batch(batchId, p.tenant, 'anthropic')!));
}

export function readBatch(deps: DialectDeps, c: Ctx): Response {
  const p = principal(c);
  const found = lookup(deps, c, p.tenant);
  if (found instanceof Response) return found;
  c.get('draft').effect = 'read';
  return json(view(deps, c, found.job, found.batch));
}

/** `POST …/cancel`: `canceling`, then `ended` with the requests that had not run `canceled`. */
export function cancelBatch(deps: DialectDeps, c: Ctx): Response {
  const { core } = deps;
  const p = principal(c);
  const found = lookup(deps, c, p.tenant);
  if (found instanceof Response) return found;
  if (isTerminal(found.job.state))
    return problem(c, 400, 'job_terminal', `Message batch ${found.batch.batch_id} has ended and cannot be canceled.`);
  const result = core.db.transaction(() => core.engine.cancel(found.job))();
  const d = c.get('draft');
  d.effect = result.kind === 'accepted' ? 'cancel_requested' : 'cancel_repeated';
  d.job_state = result.job.state;
  return json(view(deps, c, result.job, found.batch));
}

/** `GET …/results`: JSONL, once the batch has ended. */
export function batchResults(deps: DialectDeps, c: Ctx): Response {
  const { core } = deps;
  const p = principal(c);
  const found = lookup(deps, c, p.tenant);
  if (found instanceof Response) return found;
  const { job, batch } = found;
  if (!isTerminal(job.state))
    return problem(
      c,
      400,
      'job_not_succeeded',
      `Message batch ${batch.batch_id} is still processing; results are available once it has ended.`,
    );
  const b = job.behavior;
  const gone = (b.one_shot_results && job.results_fetched > 0) || resultsExpired(job, core.clock.now());
  if (gone) return problem(c, 404, 'results_gone', `The results of message batch ${batch.batch_id} are no longer available.`);
  core.engine.markResultsFetched(job);
  c.get('draft').effect = 'results_served';
  const body = renderResults(job, batch, deps.repo.requests(batch.batch_id), core.clock.now());
  c.get('draft').served_sha256 = sha256Hex(body);
  return new Response(body, { status: 200, headers: { 'content-type': 'application/binary' } });
}

/** `GET /v1/messages/batches?before_id&after_id&limit`: newest first. */
export function listBatches(deps: DialectDeps, c: Ctx): Response {
  const { core, repo } = deps;
  const p = principal(c);
  const q = ListQuerySchema.safeParse(c.req.query());
  if (!q.success) return problem(c, 400, 'invalid_request', 'invalid query parameters', { errors: zodErrors(q.error) });
  const cursor = q.data.after_id ?? q.data.before_id;
  const seq = cursor === undefined ? undefined : repo.seqOf(cursor, p.tenant, 'anthropic');
  if (cursor !== undefined && seq === undefined) return problem(c, 400, 'invalid_request', `no message batch ${cursor} to page from`);
  const towardsNewer = q.data.before_id !== undefined;
  const rows = repo.list({
    tenant: p.tenant,
    dialect: 'anthropic',
    limit: q.data.limit + 1,
    ...(towardsNewer ? { afterSeq: seq } : { beforeSeq: seq }),
  });
  const hasMore = rows.length > q.data.limit;
  // Towards newer batches the extra row is the newest one, which leads the page; elsewhere it trails it.
  const page = hasMore ? (towardsNewer ? rows.slice(1) : rows.slice(0, q.data.limit)) : rows;
  const d = c.get('draft');
  d.effect = 'read';
  const jobs = page.map((b) => core.jobs.get(b.batch_id)!);
  d.listed = page.map((b, i) => ({ job_id: b.batch_id, state: jobs[i]!.state }));
  const data = page.map((b, i) => view(deps, c, jobs[i]!, b));
  return json({ data, has_more: hasMore, first_id: page[0]?.batch_id ?? null, last_id: page.at(-1)?.batch_id ?? null });
}

/** `DELETE /v1/messages/batches/{id}`: only once ended. No fault route names it (dialects.md). */
export function deleteBatch(deps: DialectDeps, c: Ctx): Response {
  const { core, repo } = deps;
  const p = principal(c);
  const found = lookup(deps, c, p.tenant);
  if (found instanceof Response) return found;
  if (!isTerminal(found.job.state))
    return problem(
      c,
      400,
      'job_not_terminal',
      `Message batch ${found.batch.batch_id} is still processing; cancel it and wait until it has ended to delete it.`,
    );
  repo.markDeleted(found.batch.batch_id, core.clock.now());
  c.get('draft').effect = 'none';
  return json({ id: found.batch.batch_id, type: 'message_batch_deleted' });
}
