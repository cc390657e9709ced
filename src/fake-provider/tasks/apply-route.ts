import type { z } from 'zod';
import { fingerprint } from '../../lib/canonical-json.js';
import type { ProviderCore } from '../core.js';
import { readJson, type Parsed } from '../http/body.js';
import type { Ctx } from '../http/context.js';
import { parseIdempotencyKey, type KeyParse } from '../http/idempotency-key.js';
import { errorAnswer, problem, type ProblemExtras } from '../http/problem.js';
import { described, inProgress, reserveThenHold, storedResponse, unexecuted } from '../http/seam/index.js';
import type { KeyScope, StoredAnswer } from '../store/idempotency-repo.js';
import { badKey } from './create-route.js';
import { ApplyBodySchema } from '../../contract/tasks.js';
import { noteTask, taskNotFound } from './read-routes.js';
import type { TaskService } from './task-service.js';

const APPLY_SCOPE = 'POST /v1/tasks/{task_id}/apply';

export interface ApplyInput {
  key: KeyParse;
  body: Parsed<z.output<typeof ApplyBodySchema>>;
}

/** The apply key's fingerprint covers the task id: the same key on another task is a different request. */
export async function describeApply(c: Ctx): Promise<ApplyInput> {
  const key = parseIdempotencyKey(c.req.header('idempotency-key'));
  if (key.ok === true) c.get('draft').idempotency_key = key.key;
  const body = await readJson(c, ApplyBodySchema, true);
  if (body.ok) c.get('draft').fingerprint = fingerprint({ task_id: c.req.param('task_id'), body: body.raw });
  return { key, body };
}

/** `POST /v1/tasks/{id}/apply`: its own Idempotency-Key; checks at the moment of applying; the change happens once. */
export async function applyTask(core: ProviderCore, svc: TaskService, c: Ctx): Promise<Response> {
  const draft = c.get('draft');
  const principal = c.get('principal');
  const id = c.req.param('task_id')!;
  const { key: keyParse, body } = described(c, describeApply);
  if (keyParse.ok === 'missing') {
    return unexecuted(problem(c, 400, 'idempotency_key_missing', 'POST /v1/tasks/{task_id}/apply needs its own Idempotency-Key header'));
  }
  if (keyParse.ok === false) return badKey(c, keyParse.message);
  if (!body.ok) return unexecuted(body.response);
  const found = svc.tasks.getForTenant(id, principal.tenant);
  if (!found) return unexecuted(taskNotFound(c, id));
  noteTask(c, found);
  if (!principal.roles.includes('submitter'))
    return unexecuted(problem(c, 403, 'forbidden_role', 'applying a task needs the submitter role'));

  const scope: KeyScope = { tenant: principal.tenant, subject: principal.subject, scope: APPLY_SCOPE, key: keyParse.key };
  const fp = draft.fingerprint!;
  const known = core.idempotency.lookup(scope, core.clock.now());
  if (known && known.fingerprint !== fp) {
    return unexecuted(
      problem(c, 422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request; nothing was applied'),
    );
  }
  if (known?.state === 'in_flight') return inProgress(core, c);
  if (known?.state === 'done') {
    draft.effect = 'replayed';
    return storedResponse(c, known.answer, true);
  }

  await reserveThenHold(core, c, scope, fp);
  return core.db.transaction((): Response => {
    const out = svc.apply(principal, id, keyParse.key);
    noteTask(c, out.task);
    const task = svc.view(out.task);
    if (out.kind === 'applied') {
      draft.effect = 'applied';
      const a: StoredAnswer = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(task) };
      core.idempotency.complete(scope, a, id, core.clock.now(), core.options.idempotencyTtlMs);
      return storedResponse(c, a, false);
    }
    if (out.kind === 'apply_failed') {
      // Executed: the attempt is final and its answer is what this key replays.
      const a = errorAnswer(c, 409, 'apply_failed', 'the approved change could not be applied; the task is apply_failed', { task });
      core.idempotency.complete(scope, a, id, core.clock.now(), core.options.idempotencyTtlMs);
      return storedResponse(c, a, false);
    }
    // Refused before executing: the key stays unused.
    core.idempotency.release(scope);
    const g = out.gate;
    const extras: ProblemExtras =
      g.code === 'already_applied'
        ? { application: out.task.application, task }
        : g.code === 'stale_object_version'
          ? { object_ref: out.task.object_ref, current_version: out.currentVersion, task }
          : { task };
    return problem(c, 409, g.code, g.detail, extras);
  })();
}
