import { isoTime } from '../../lib/clock.js';
import type { ProviderCore } from '../core.js';
import type { Ctx } from '../http/context.js';
import { json, problem } from '../http/problem.js';
import { ObjectRefSchema } from '../../contract/tasks.js';
import type { TaskRow } from './model.js';
import type { TaskService } from './task-service.js';

export function noteTask(c: Ctx, t: Pick<TaskRow, 'task_id' | 'state'>): void {
  const d = c.get('draft');
  d.task_id = t.task_id;
  d.task_state = t.state;
}

export function taskNotFound(c: Ctx, id: string): Response {
  return problem(c, 404, 'task_not_found', `no task ${id} in your tenant`);
}

function retryAdvice(core: ProviderCore, t: TaskRow): Record<string, string> {
  return t.state === 'queued' || t.state === 'running' ? { 'retry-after': String(core.options.pollAdviceSeconds) } : {};
}

/** `GET /v1/objects/{object_ref}`: own tenant only. Journalled as route `object_read`; not a fault route. */
export function readObject(svc: TaskService, c: Ctx): Response {
  const ref = c.req.param('object_ref')!;
  const o = ObjectRefSchema.safeParse(ref).success ? svc.objects.get(c.get('principal').tenant, ref) : undefined;
  if (!o) return problem(c, 404, 'object_not_found', `no object ${ref} in your tenant`);
  c.get('draft').effect = 'read';
  return json({ object_ref: o.object_ref, version: o.version, data: o.data, updated_at: isoTime(o.updated_at) });
}

/** `GET /v1/tasks/{task_id}`. */
export function readTask(core: ProviderCore, svc: TaskService, c: Ctx): Response {
  const id = c.req.param('task_id')!;
  const t = svc.tasks.getForTenant(id, c.get('principal').tenant);
  if (!t) return taskNotFound(c, id);
  noteTask(c, t);
  c.get('draft').effect = 'read';
  return json(svc.view(t), 200, retryAdvice(core, t));
}

/** `GET /v1/tasks/{task_id}/audit`. */
export function readAudit(svc: TaskService, c: Ctx): Response {
  const id = c.req.param('task_id')!;
  const t = svc.tasks.getForTenant(id, c.get('principal').tenant);
  if (!t) return taskNotFound(c, id);
  noteTask(c, t);
  c.get('draft').effect = 'read';
  return json({ task_id: t.task_id, events: svc.auditOf(t.task_id) });
}
