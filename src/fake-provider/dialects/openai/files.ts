import { resultsExpired } from '../../engine/results.js';
import { z } from 'zod';
import { sha256Hex } from '../../../lib/canonical-json.js';
import type { Ctx } from '../../http/context.js';
import { zodErrors } from '../../http/body.js';
import { json, problem } from '../../http/problem.js';
import { unexecuted } from '../../http/seam/index.js';
import { unixSeconds } from '../lines.js';
import { principal, type DialectDeps } from '../shared.js';
import type { FileRow } from '../store.js';
import { BATCH_FILE_EXPIRY_S, ExpiresAfterSchema, fileExpiresAt, liveFile } from './file-expiry.js';
import { customIdsOf, parseJsonl } from './model.js';
import { renderOutputFile } from './output.js';
import { openaiBatchView } from './view.js';

const PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'];

export function fileView(f: Omit<FileRow, 'fetched' | 'deleted_at'>, bytes = f.bytes): Record<string, unknown> {
  const at = fileExpiresAt(f);
  return {
    id: f.file_id,
    object: 'file',
    bytes,
    created_at: unixSeconds(f.created_at),
    filename: f.filename,
    purpose: f.role === 'input' ? f.purpose : 'batch_output',
    status: 'processed',
    // The document and openai-node type both as optional, not nullable: a file that never expires has no expires_at.
    ...(at === null ? {} : { expires_at: unixSeconds(at) }),
  };
}

function noSuchFile(c: Ctx, id: string): Response {
  return problem(c, 404, 'file_not_found', `No such File object: ${id}`, { param: 'id' });
}

/** `expires_after[anchor]` and `expires_after[seconds]` (how the SDKs send it in a form): its seconds, or none. */
function expiresAfter(form: Record<string, unknown>): number | undefined | Error {
  const anchor = form['expires_after[anchor]'];
  const seconds = form['expires_after[seconds]'];
  if (anchor === undefined && seconds === undefined) return undefined;
  const parsed = ExpiresAfterSchema.safeParse({ anchor, seconds });
  return parsed.success ? parsed.data.seconds : new Error("'expires_after' must be {anchor: 'created_at', seconds: 3600 to 2592000}.");
}

/** `POST /files` (multipart: `file`, `purpose`): only `purpose=batch` is served, and it must be JSONL. */
export async function uploadFile({ core, repo }: DialectDeps, c: Ctx): Promise<Response> {
  const p = principal(c);
  if (!/^multipart\/form-data/i.test(c.req.header('content-type') ?? '')) {
    return unexecuted(problem(c, 400, 'invalid_request', "Uploads must be multipart/form-data with a 'file' part and a 'purpose' field."));
  }
  let form: Record<string, unknown>;
  try {
    form = await c.req.parseBody();
  } catch {
    return unexecuted(problem(c, 400, 'invalid_request', "The body must be multipart/form-data with 'file' and 'purpose'."));
  }
  const purpose = form.purpose;
  const file = form.file;
  if (typeof purpose !== 'string' || !PURPOSES.includes(purpose))
    return unexecuted(problem(c, 400, 'invalid_request', `'purpose' must be one of ${PURPOSES.join(', ')}.`, { param: 'purpose' }));
  if (purpose !== 'batch')
    return unexecuted(problem(c, 400, 'invalid_request', "This fake provider serves only purpose 'batch'.", { param: 'purpose' }));
  if (!(file instanceof File)) return unexecuted(problem(c, 400, 'invalid_request', "'file' must be a file part.", { param: 'file' }));
  const expiry = expiresAfter(form);
  if (expiry instanceof Error) return unexecuted(problem(c, 400, 'invalid_request', expiry.message, { param: 'expires_after' }));
  const content = await file.text();
  const parsed = parseJsonl(content);
  if (!parsed.ok)
    return unexecuted(
      problem(c, 400, 'invalid_request', `Invalid file format for Batch API: line ${parsed.line} is not a JSON object.`, { param: 'file' }),
    );
  const row: Omit<FileRow, 'seq' | 'fetched' | 'deleted_at'> = {
    file_id: core.ids('file').replace(/^file_/, 'file-'),
    tenant: p.tenant,
    purpose,
    filename: file.name || 'upload.jsonl',
    bytes: Buffer.byteLength(content),
    created_at: core.clock.now(),
    content,
    batch_id: null,
    role: 'input',
    expires_after: expiry ?? BATCH_FILE_EXPIRY_S,
  };
  repo.insertFile(row);
  const d = c.get('draft');
  d.effect = 'created';
  d.file_id = row.file_id;
  d.custom_ids = customIdsOf(parsed.lines);
  return json(fileView({ ...row, seq: 0 }));
}

/** An output or error file exists once its batch has ended with lines for it. */
function outputContent({ core, repo }: DialectDeps, f: FileRow): string | null {
  if (!f.batch_id) return null;
  const job = core.jobs.get(f.batch_id);
  const batch = repo.anyBatch(f.batch_id);
  if (!job || !batch) return null;
  const now = core.clock.now();
  const v = openaiBatchView(job, batch, now);
  if (v.output_file_id !== f.file_id && v.error_file_id !== f.file_id) return null;
  return renderOutputFile(job, batch, repo.requests(batch.batch_id), f.role === 'output' ? 'output' : 'error', now);
}

/** `GET /files/{id}` */
export function readFile(deps: DialectDeps, c: Ctx): Response {
  const p = principal(c);
  const id = c.req.param('file_id')!;
  const d = c.get('draft');
  d.file_id = id;
  const f = liveFile(deps.repo, id, p.tenant, deps.core.clock.now());
  if (!f) return noSuchFile(c, id);
  if (f.role === 'input') {
    d.effect = 'read';
    return json(fileView(f));
  }
  const content = outputContent(deps, f);
  if (content === null) return noSuchFile(c, id);
  d.effect = 'read';
  d.job_id = f.batch_id;
  return json(fileView(f, Buffer.byteLength(content)));
}

const ListFilesQuery = z.object({
  purpose: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
  after: z.string().min(1).max(200).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
});

/**
 * `GET /files?purpose&limit&after&order`: the tenant's files, newest first by default — uploads, and each ended
 * batch's output and error files once they exist. A client that lost an upload's answer can find its file here.
 */
export function listFiles(deps: DialectDeps, c: Ctx): Response {
  const { repo, core } = deps;
  const p = principal(c);
  const now = core.clock.now();
  const q = ListFilesQuery.safeParse(c.req.query());
  if (!q.success) return problem(c, 400, 'invalid_request', 'Invalid query parameters', { errors: zodErrors(q.error) });
  const { purpose, limit, after, order } = q.data;
  let afterSeq: number | undefined;
  if (after !== undefined) {
    afterSeq = repo.file(after, p.tenant)?.seq;
    if (afterSeq === undefined) return problem(c, 400, 'invalid_request', `Invalid 'after': no file ${after}.`, { param: 'after' });
  }
  const page: Array<Record<string, unknown>> = [];
  let hasMore = false;
  // Output files not yet written (their batch still running) are skipped, so read on until the page is full.
  for (;;) {
    const rows = repo.files(p.tenant, order, afterSeq, 500);
    for (const r of rows) {
      afterSeq = r.seq;
      if (purpose !== undefined && (r.role === 'input' ? r.purpose : 'batch_output') !== purpose) continue;
      const expires = fileExpiresAt(r);
      if (expires !== null && now >= expires) continue;
      const content = r.role === 'input' ? null : outputContent(deps, { ...r, content: null });
      if (r.role !== 'input' && content === null) continue;
      if (page.length === limit) {
        hasMore = true;
        break;
      }
      page.push(fileView({ ...r, content: null }, content === null ? r.bytes : Buffer.byteLength(content)));
    }
    if (hasMore || rows.length < 500) break;
  }
  c.get('draft').effect = 'read';
  return json({ object: 'list', data: page, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null, has_more: hasMore });
}

/** `DELETE /files/{id}`: an input file, or a batch's output or error file, is gone for good. */
export function deleteFile({ core, repo }: DialectDeps, c: Ctx): Response {
  const p = principal(c);
  const id = c.req.param('file_id')!;
  c.get('draft').file_id = id;
  const f = liveFile(repo, id, p.tenant, core.clock.now());
  if (!f) return noSuchFile(c, id);
  repo.deleteFile(id, core.clock.now());
  return json({ id, object: 'file', deleted: true });
}

/** `GET /files/{id}/content`: an input file as uploaded, or a batch's output / error file (the batch's results). */
export function fileContent(deps: DialectDeps, c: Ctx): Response {
  const { core, repo } = deps;
  const p = principal(c);
  const id = c.req.param('file_id')!;
  const d = c.get('draft');
  d.file_id = id;
  const f = liveFile(repo, id, p.tenant, core.clock.now());
  if (!f) return noSuchFile(c, id);
  if (f.role === 'input') {
    d.effect = 'read';
    return new Response(f.content, { status: 200, headers: { 'content-type': 'application/octet-stream' } });
  }
  d.job_id = f.batch_id;
  const job = core.jobs.get(f.batch_id!)!;
  d.job_state = job.state;
  // One-shot and expiring results map to output files that are gone: OpenAI answers a deleted file with 404.
  if ((job.behavior.one_shot_results && f.fetched > 0) || resultsExpired(job, core.clock.now())) return noSuchFile(c, id);
  const content = outputContent(deps, f);
  if (content === null) return noSuchFile(c, id);
  core.db.transaction(() => {
    repo.fileFetched(f.file_id);
    core.engine.markResultsFetched(job);
  })();
  d.effect = 'results_served';
  d.served_sha256 = sha256Hex(content);
  return new Response(content, { status: 200, headers: { 'content-type': 'application/octet-stream' } });
}
