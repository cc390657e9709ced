import { behaviorFor } from '../../../contract/behavior.js';
import { isTerminal } from '../../../contract/jobs.js';
import { readJson, zodErrors, type Parsed } from '../../http/body.js';
import type { Ctx } from '../../http/context.js';
import { described, unexecuted } from '../../http/seam/index.js';
import { json, problem } from '../../http/problem.js';
import type { JobRow } from '../../store/jobs-repo.js';
import { DIALECT_MAX_BODY_BYTES, principal, type DialectDeps } from '../shared.js';
import type { Principal } from '../../../contract/principals.js';
import type { BatchRow, NewBatch } from '../store.js';
import { CreateBatchSchema, customIdsOf, type CreateBatchBody, ListQuerySchema, parseJsonl, validateLines } from './model.js';
import { liveFile } from './file-expiry.js';
import { batchFacts } from './usage.js';
import { openaiBatchView } from './view.js';
import { openaiWebhookUrls } from './webhook-events.js';
import { atomically } from '../../store/atomically.js';

export const OPENAI_KIND = 'openai.batch';

function view({ core, repo }: DialectDeps, job: JobRow, batch: BatchRow): Record<string, unknown> {
  return openaiBatchView(job, batch, core.clock.now(), batchFacts(repo, batch));
}

function noSuchBatch(c: Ctx, id: string): Response {
  return problem(c, 404, 'batch_not_found', `No batch found with id '${id}'.`, { param: 'batch_id' });
}

function lookup({ core, repo }: DialectDeps, c: Ctx, tenant: string): { job: JobRow; batch: BatchRow } | Response {
  const id = c.req.param('batch_id')!;
  c.get('draft').job_id = id;
  const batch = repo.batch(id, tenant, 'openai');
  const job = batch && core.jobs.getForTenant(id, tenant);
  if (!batch || !job) return noSuchBatch(c, id);
  c.get('draft').job_state = job.state;
  return { job, batch };
}

/** The create's body and the requests its file names go to the journal before the fault decision (the judge links by them). */
export async function describeCreate(deps: DialectDeps, c: Ctx, p: Principal): Promise<Parsed<CreateBatchBody>> {
  const body = await readJson(c, CreateBatchSchema, false, DIALECT_MAX_BODY_BYTES);
  if (body.ok) {
    const draft = c.get('draft');
    draft.file_id = body.value.input_file_id;
    const f = deps.repo.file(body.value.input_file_id, p.tenant);
    const parsed = f?.content ? parseJsonl(f.content) : null;
    if (parsed?.ok) draft.custom_ids = customIdsOf(parsed.lines);
  }
  return body;
}

/**
 * `POST /batches`. No idempotency: every create that executes makes a new batch, as on the real API. The input file's
 * problems fail the batch in `validating` (they are no 400), as they do there.
 */
export async function createBatch(
  deps: DialectDeps,
  c: Ctx,
  describe: (c: Ctx, p: Principal) => ReturnType<typeof describeCreate>,
): Promise<Response> {
  const { core, repo } = deps;
  const draft = c.get('draft');
  const p = principal(c);
  const body = described(c, describe);
  if (!body.ok) return unexecuted(body.response);
  const b = body.value;
  const file = liveFile(repo, b.input_file_id, p.tenant, core.clock.now());
  if (file?.role !== 'input')
    return unexecuted(
      problem(c, 400, 'invalid_request', `Invalid 'input_file_id': no such file ${b.input_file_id}.`, { param: 'input_file_id' }),
    );
  if (file.purpose !== 'batch') {
    return unexecuted(
      problem(c, 400, 'invalid_request', `The input file must have purpose 'batch'; ${b.input_file_id} has '${file.purpose}'.`, {
        param: 'input_file_id',
      }),
    );
  }
  const { requests, errors } = validateLines(file.content ?? '', b.endpoint);
  const base = behaviorFor(core.behaviors.get(), OPENAI_KIND);
  const behavior = {
    ...base,
    items: requests.length,
    items_failed: Math.min(base.items_failed, requests.length),
    ...(errors.length ? { outcome: 'failed' as const } : {}),
  };
  const batchId = core.ids('batch');
  const fileId = () => core.ids('file').replace(/^file_/, 'file-');
  const row: NewBatch = {
    batch_id: batchId,
    dialect: 'openai',
    tenant: p.tenant,
    endpoint: b.endpoint,
    input_file_id: b.input_file_id,
    completion_window: b.completion_window,
    metadata: b.metadata ?? null,
    requests,
    invalid_lines: [],
    output_file_id: fileId(),
    error_file_id: fileId(),
    errors: errors.length ? errors : null,
  };
  // The turn's transaction (store/group-commit.ts): the answer waits for its commit like a native create's.
  core.group.join();
  const job = atomically(core.db, () => {
    const j = core.engine.create(
      p,
      {
        kind: OPENAI_KIND,
        input: { dialect: 'openai', endpoint: b.endpoint, input_file_id: b.input_file_id, requests: requests.length },
        webhook_url: openaiWebhookUrls(core)[p.tenant],
      },
      behavior,
      { key: null, trace_id: c.get('traceId'), id: batchId },
    );
    repo.insertBatch(row);
    const now = core.clock.now();
    for (const [role, id] of [
      ['output', row.output_file_id],
      ['error', row.error_file_id],
    ] as const) {
      repo.insertFile({
        file_id: id!,
        tenant: p.tenant,
        purpose: 'batch_output',
        filename: `${batchId}_${role}.jsonl`,
        bytes: 0,
        created_at: now,
        content: null,
        batch_id: batchId,
        role,
        expires_after: b.output_expires_after?.seconds ?? null,
      });
    }
    return j;
  });
  core.engine.scheduleCreated();
  draft.effect = 'created';
  draft.job_id = job.job_id;
  draft.job_state = job.state;
  return json(view(deps, job, repo.batch(batchId, p.tenant, 'openai')!));
}

/** `GET /batches/{id}` */
export function readBatch(deps: DialectDeps, c: Ctx): Response {
  const p = principal(c);
  const found = lookup(deps, c, p.tenant);
  if (found instanceof Response) return found;
  c.get('draft').effect = 'read';
  return json(view(deps, found.job, found.batch));
}

/** `POST /batches/{id}/cancel`: the batch, `cancelling` (then `cancelled`, or its outcome if the cancel lost the race). */
export function cancelBatch(deps: DialectDeps, c: Ctx): Response {
  const { core } = deps;
  const p = principal(c);
  const found = lookup(deps, c, p.tenant);
  if (found instanceof Response) return found;
  const { job, batch } = found;
  if (isTerminal(job.state)) {
    const status = openaiBatchView(job, batch, core.clock.now()).status as string;
    return problem(c, 409, 'job_terminal', `Cannot cancel a batch with status '${status}'.`);
  }
  const result = core.db.transaction(() => core.engine.cancel(job))();
  const d = c.get('draft');
  d.effect = result.kind === 'accepted' ? 'cancel_requested' : 'cancel_repeated';
  d.job_state = result.job.state;
  return json(view(deps, result.job, batch));
}

/** `GET /batches?after&limit`: newest first; `after` is the id of the last batch of the previous page. */
export function listBatches(deps: DialectDeps, c: Ctx): Response {
  const { core, repo } = deps;
  const p = principal(c);
  const q = ListQuerySchema.safeParse(c.req.query());
  if (!q.success) return problem(c, 400, 'invalid_request', 'Invalid query parameters', { errors: zodErrors(q.error) });
  let beforeSeq: number | undefined;
  if (q.data.after !== undefined) {
    beforeSeq = repo.seqOf(q.data.after, p.tenant, 'openai');
    if (beforeSeq === undefined)
      return problem(c, 400, 'invalid_request', `Invalid 'after': no batch ${q.data.after}.`, { param: 'after' });
  }
  const rows = repo.list({ tenant: p.tenant, dialect: 'openai', beforeSeq, limit: q.data.limit + 1 });
  const page = rows.slice(0, q.data.limit);
  const jobs = page.map((b) => core.jobs.get(b.batch_id)!);
  const data = page.map((b, i) => view(deps, jobs[i]!, b));
  const d = c.get('draft');
  d.effect = 'read';
  d.listed = page.map((b, i) => ({ job_id: b.batch_id, state: jobs[i]!.state }));
  return json({
    object: 'list',
    data,
    first_id: page[0]?.batch_id ?? null,
    last_id: page.at(-1)?.batch_id ?? null,
    has_more: rows.length > q.data.limit,
  });
}
