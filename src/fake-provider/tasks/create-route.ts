import type { z } from 'zod';
import { fingerprint } from '../../lib/canonical-json.js';
import { isoTime } from '../../lib/clock.js';
import type { ProviderCore } from '../core.js';
import { readJson, type Parsed } from '../http/body.js';
import type { Ctx } from '../http/context.js';
import { parseIdempotencyKey, type KeyParse } from '../http/idempotency-key.js';
import { problem } from '../http/problem.js';
import { described, inProgress, reserveThenHold, storedResponse, unexecuted } from '../http/seam/index.js';
import type { KeyScope, StoredAnswer } from '../store/idempotency-repo.js';
import { CreateTaskBodySchema } from '../../contract/tasks.js';
import type { TaskRow } from './model.js';
import { noteTask } from './read-routes.js';
import type { TaskService } from './task-service.js';

const CREATE_SCOPE = 'POST /v1/tasks';

export interface CreateTaskInput {
  key: KeyParse;
  body: Parsed<z.output<typeof CreateTaskBodySchema>>;
}

export function badKey(c: Ctx, message: string): Response {
  return unexecuted(problem(c, 400, 'invalid_request', message, { errors: [{ path: 'headers.idempotency-key', message }] }));
}

/** Key and fingerprint go to the journal before the fault decision, like a job create's. */
export async function describeCreateTask(c: Ctx): Promise<CreateTaskInput> {
  const key = parseIdempotencyKey(c.req.header('idempotency-key'));
  if (key.ok === true) c.get('draft').idempotency_key = key.key;
  const body = await readJson(c, CreateTaskBodySchema);
  if (body.ok) c.get('draft').fingerprint = fingerprint(body.raw);
  return { key, body };
}

/** `POST /v1/tasks`: idempotent create, scoped to tenant + subject + operation, the same pattern as `POST /v1/jobs`. */
export async function createTask(core: ProviderCore, svc: TaskService, c: Ctx): Promise<Response> {
  const draft = c.get('draft');
  const principal = c.get('principal');
  const { key: keyParse, body } = described(c, describeCreateTask);
  if (keyParse.ok === 'missing')
    return unexecuted(problem(c, 400, 'idempotency_key_missing', 'POST /v1/tasks needs an Idempotency-Key header'));
  if (keyParse.ok === false) return badKey(c, keyParse.message);
  if (!body.ok) return unexecuted(body.response);
  // Roles of now, at every step; rights come from the session, never from the request text.
  if (!principal.roles.includes('submitter'))
    return unexecuted(problem(c, 403, 'forbidden_role', 'creating a task needs the submitter role'));

  const scope: KeyScope = { tenant: principal.tenant, subject: principal.subject, scope: CREATE_SCOPE, key: keyParse.key };
  const fp = draft.fingerprint!;
  const known = core.idempotency.lookup(scope, core.clock.now());
  if (known && known.fingerprint !== fp) {
    return unexecuted(
      problem(c, 422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body; nothing was created'),
    );
  }
  if (known?.state === 'in_flight') return inProgress(core, c);
  if (known?.state === 'done') {
    draft.effect = 'replayed';
    const t = known.job_id ? svc.tasks.get(known.job_id) : undefined;
    if (t) noteTask(c, { task_id: t.task_id, state: (JSON.parse(known.answer.body) as { state: TaskRow['state'] }).state });
    return storedResponse(c, known.answer, true);
  }

  const pre = svc.checkCreate(principal, body.value);
  if (!pre.ok) return unexecuted(problem(c, pre.status, pre.code, pre.detail, pre.extras ?? {}));
  await reserveThenHold(core, c, scope, fp);
  // Checked again after a delay: the object may have changed meanwhile.
  const check = svc.checkCreate(principal, body.value);
  if (!check.ok) {
    core.idempotency.release(scope);
    return unexecuted(problem(c, check.status, check.code, check.detail, check.extras ?? {}));
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
  return storedResponse(c, answer, false);
}
