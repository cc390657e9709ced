import type { Hono } from 'hono';
import { fingerprint } from '../../lib/canonical-json.js';
import { isoTime } from '../../lib/clock.js';
import type { ProviderCore } from '../core.js';
import { afterExecution, beforeExecution, decideFault } from '../http/apply-faults.js';
import { authenticate } from '../http/auth.js';
import { readJson } from '../http/body.js';
import type { Ctx, Env } from '../http/context.js';
import { parseIdempotencyKey } from '../http/idempotency-key.js';
import { json, problem, type ProblemExtras } from '../http/problem.js';
import type { KeyScope, StoredAnswer } from '../store/idempotency-repo.js';
import { ApplyBodySchema, CreateTaskBodySchema, ObjectRefSchema, ReviewBodySchema } from '../../contract/tasks.js';
import type { TaskRow } from './model.js';
import type { TaskService } from './task-service.js';
import { guarded, inProgress, reserveThenDelay, storedResponse } from '../http/guarded.js';

const CREATE_SCOPE = 'POST /v1/tasks';
const APPLY_SCOPE = 'POST /v1/tasks/{task_id}/apply';

/** A problem as a storable answer (same shape as `problem()`), for answers an idempotency key must replay. */
function problemAnswer(c: Ctx, status: number, code: string, detail: string, extras: ProblemExtras = {}): StoredAnswer {
  c.get('draft').code = code;
  const body = { type: `https://jobproof.dev/problems/${code}`, title: status === 409 ? 'Conflict' : 'Error', status, code, detail, request_id: c.get('requestId'), ...extras };
  return { status, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify(body) };
}

function noteTask(c: Ctx, t: Pick<TaskRow, 'task_id' | 'state'>): void {
  const d = c.get('draft');
  d.task_id = t.task_id;
  d.task_state = t.state;
}

function badKey(c: Ctx, message: string): Response {
  return problem(c, 400, 'invalid_request', message, { errors: [{ path: 'headers.idempotency-key', message }] });
}

function taskNotFound(c: Ctx, id: string): Response {
  return problem(c, 404, 'task_not_found', `no task ${id} in your tenant`);
}

function retryAdvice(core: ProviderCore, t: TaskRow): Record<string, string> {
  return t.state === 'queued' || t.state === 'running' ? { 'retry-after': String(core.options.pollAdviceSeconds) } : {};
}

/** `GET /v1/objects/{object_ref}`: own tenant only. Journalled as route `object_read`; not a fault route. */
function readObject(core: ProviderCore, svc: TaskService, c: Ctx): Response {
  c.get('draft').route = 'object_read';
  const p = authenticate(core, c);
  if (p instanceof Response) return p;
  const ref = c.req.param('object_ref')!;
  const o = ObjectRefSchema.safeParse(ref).success ? svc.objects.get(p.tenant, ref) : undefined;
  if (!o) return problem(c, 404, 'object_not_found', `no object ${ref} in your tenant`);
  c.get('draft').effect = 'read';
  return json({ object_ref: o.object_ref, version: o.version, data: o.data, updated_at: isoTime(o.updated_at) });
}

/** `POST /v1/tasks`: idempotent create, scoped to tenant + subject + operation, the same pattern as `POST /v1/jobs`. */
async function createTask(core: ProviderCore, svc: TaskService, c: Ctx): Promise<Response> {
  const draft = c.get('draft');
  draft.route = 'task_create';
  const principal = authenticate(core, c);
  if (principal instanceof Response) return principal;
  const keyParse = parseIdempotencyKey(c.req.header('idempotency-key'));
  if (keyParse.ok === true) draft.idempotency_key = keyParse.key;
  const body = await readJson(c, CreateTaskBodySchema);
  if (body.ok) draft.fingerprint = fingerprint(body.raw);
  const fired = decideFault(core, c, 'task_create');
  const refused = beforeExecution(core, c, fired);
  if (refused) return refused;

  if (keyParse.ok === 'missing') return problem(c, 400, 'idempotency_key_missing', 'POST /v1/tasks needs an Idempotency-Key header');
  if (keyParse.ok === false) return badKey(c, keyParse.message);
  if (!body.ok) return body.response;
  // Roles of now, at every step; rights come from the session, never from the request text.
  if (!principal.roles.includes('submitter')) return problem(c, 403, 'forbidden_role', 'creating a task needs the submitter role');

  const scope: KeyScope = { tenant: principal.tenant, subject: principal.subject, scope: CREATE_SCOPE, key: keyParse.key };
  const fp = draft.fingerprint!;
  const known = core.idempotency.lookup(scope, core.clock.now());
  if (known && known.fingerprint !== fp) return problem(c, 422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body; nothing was created');
  if (known?.state === 'in_flight') return inProgress(core, c);
  if (known?.state === 'done') {
    draft.effect = 'replayed';
    const t = known.job_id ? svc.tasks.get(known.job_id) : undefined;
    if (t) noteTask(c, { task_id: t.task_id, state: (JSON.parse(known.answer.body) as { state: TaskRow['state'] }).state });
    return afterExecution(c, fired, storedResponse(known.answer, true));
  }

  const pre = svc.checkCreate(principal, body.value);
  if (!pre.ok) return problem(c, pre.status, pre.code, pre.detail, pre.extras ?? {});
  await reserveThenDelay(core, c, scope, fp, fired);
  // Checked again after a delay: the object may have changed meanwhile.
  const check = svc.checkCreate(principal, body.value);
  if (!check.ok) {
    core.idempotency.release(scope);
    return problem(c, check.status, check.code, check.detail, check.extras ?? {});
  }
  const answer = core.db.transaction((): StoredAnswer => {
    const t = svc.create(principal, body.value, check.object, { key: keyParse.key, trace_id: c.get('traceId') });
    const location = `/v1/tasks/${t.task_id}`;
    const a: StoredAnswer = {
      status: 202,
      headers: { 'content-type': 'application/json', location },
      body: JSON.stringify({ task_id: t.task_id, state: 'queued', status_url: location, created_at: isoTime(t.created_at) }),
    };
    core.idempotency.complete(scope, a, t.task_id, core.clock.now(), core.options.idempotencyTtlMs);
    draft.effect = 'created';
    noteTask(c, t);
    return a;
  })();
  return afterExecution(c, fired, storedResponse(answer, false));
}

function readTask(core: ProviderCore, svc: TaskService, c: Ctx): Promise<Response> {
  return guarded(core, c, 'task_read', (p) => {
    const id = c.req.param('task_id')!;
    const t = svc.tasks.getForTenant(id, p.tenant);
    if (!t) return taskNotFound(c, id);
    noteTask(c, t);
    c.get('draft').effect = 'read';
    return json(svc.view(t), 200, retryAdvice(core, t));
  });
}

function readAudit(core: ProviderCore, svc: TaskService, c: Ctx): Promise<Response> {
  return guarded(core, c, 'task_read', (p) => {
    const id = c.req.param('task_id')!;
    const t = svc.tasks.getForTenant(id, p.tenant);
    if (!t) return taskNotFound(c, id);
    noteTask(c, t);
    c.get('draft').effect = 'read';
    return json({ task_id: t.task_id, events: svc.auditOf(t.task_id) });
  });
}

function reviewTask(core: ProviderCore, svc: TaskService, c: Ctx): Promise<Response> {
  return guarded(core, c, 'review', async (p) => {
    const id = c.req.param('task_id')!;
    const body = await readJson(c, ReviewBodySchema);
    if (!body.ok) return body.response;
    const t = svc.tasks.getForTenant(id, p.tenant);
    if (!t) return taskNotFound(c, id);
    const out = svc.review(p, id, body.value);
    noteTask(c, out.task);
    if (!out.ok) return problem(c, out.status, out.code, out.detail, { task: svc.view(out.task) });
    c.get('draft').effect = 'reviewed';
    return json(svc.view(out.task));
  });
}

/** `POST /v1/tasks/{id}/apply`: its own Idempotency-Key; checks at the moment of applying; the change happens once. */
async function applyTask(core: ProviderCore, svc: TaskService, c: Ctx): Promise<Response> {
  const draft = c.get('draft');
  draft.route = 'apply';
  const principal = authenticate(core, c);
  if (principal instanceof Response) return principal;
  const id = c.req.param('task_id')!;
  const keyParse = parseIdempotencyKey(c.req.header('idempotency-key'));
  if (keyParse.ok === true) draft.idempotency_key = keyParse.key;
  const body = await readJson(c, ApplyBodySchema, true);
  if (body.ok) draft.fingerprint = fingerprint({ task_id: id, body: body.raw });
  const fired = decideFault(core, c, 'apply');
  const refused = beforeExecution(core, c, fired);
  if (refused) return refused;

  if (keyParse.ok === 'missing') return problem(c, 400, 'idempotency_key_missing', 'POST /v1/tasks/{task_id}/apply needs its own Idempotency-Key header');
  if (keyParse.ok === false) return badKey(c, keyParse.message);
  if (!body.ok) return body.response;
  const found = svc.tasks.getForTenant(id, principal.tenant);
  if (!found) return taskNotFound(c, id);
  noteTask(c, found);
  if (!principal.roles.includes('submitter')) return problem(c, 403, 'forbidden_role', 'applying a task needs the submitter role');

  const scope: KeyScope = { tenant: principal.tenant, subject: principal.subject, scope: APPLY_SCOPE, key: keyParse.key };
  const fp = draft.fingerprint!;
  const known = core.idempotency.lookup(scope, core.clock.now());
  if (known && known.fingerprint !== fp) return problem(c, 422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request; nothing was applied');
  if (known?.state === 'in_flight') return inProgress(core, c);
  if (known?.state === 'done') {
    draft.effect = 'replayed';
    return afterExecution(c, fired, storedResponse(known.answer, true));
  }

  await reserveThenDelay(core, c, scope, fp, fired);
  const result = core.db.transaction((): { stored: StoredAnswer | null; answer: Response | StoredAnswer } => {
    const out = svc.apply(principal, id, keyParse.key);
    noteTask(c, out.task);
    const task = svc.view(out.task);
    if (out.kind === 'applied') {
      draft.effect = 'applied';
      const a: StoredAnswer = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(task) };
      core.idempotency.complete(scope, a, id, core.clock.now(), core.options.idempotencyTtlMs);
      return { stored: a, answer: a };
    }
    if (out.kind === 'apply_failed') {
      // Executed: the attempt is final and its answer is what this key replays.
      const a = problemAnswer(c, 409, 'apply_failed', 'the approved change could not be applied; the task is apply_failed', { task });
      core.idempotency.complete(scope, a, id, core.clock.now(), core.options.idempotencyTtlMs);
      return { stored: a, answer: a };
    }
    // Refused before executing: the key stays unused.
    core.idempotency.release(scope);
    const g = out.gate;
    const extras: ProblemExtras =
      g.code === 'already_applied' ? { application: out.task.application, task } :
      g.code === 'stale_object_version' ? { object_ref: out.task.object_ref, current_version: out.currentVersion, task } :
      { task };
    return { stored: null, answer: problem(c, 409, g.code, g.detail, extras) };
  })();
  const res = result.answer instanceof Response ? result.answer : storedResponse(result.answer, false);
  return afterExecution(c, fired, res);
}

/** Mount the tasks API on the provider app (before its catch-all 405/404 handlers). */
export function registerTaskRoutes(app: Hono<Env>, core: ProviderCore, svc: TaskService): void {
  app.get('/v1/objects/:object_ref', (c) => readObject(core, svc, c));
  app.post('/v1/tasks', (c) => createTask(core, svc, c));
  app.get('/v1/tasks/:task_id', (c) => readTask(core, svc, c));
  app.get('/v1/tasks/:task_id/audit', (c) => readAudit(core, svc, c));
  app.post('/v1/tasks/:task_id/review', (c) => reviewTask(core, svc, c));
  app.post('/v1/tasks/:task_id/apply', (c) => applyTask(core, svc, c));
  const allowed: Array<[string, string]> = [
    ['/v1/objects/:object_ref', 'GET'],
    ['/v1/tasks', 'POST'],
    ['/v1/tasks/:task_id', 'GET'],
    ['/v1/tasks/:task_id/audit', 'GET'],
    ['/v1/tasks/:task_id/review', 'POST'],
    ['/v1/tasks/:task_id/apply', 'POST'],
  ];
  for (const [path, allow] of allowed) {
    app.all(path, (c) => problem(c, 405, 'method_not_allowed', `${c.req.method} is not allowed here; use ${allow}`, {}, { allow }));
  }
}

