import { readJson } from '../http/body.js';
import type { Ctx } from '../http/context.js';
import { json, problem } from '../http/problem.js';
import { ReviewBodySchema } from '../../contract/tasks.js';
import { noteTask, taskNotFound } from './read-routes.js';
import type { TaskService } from './task-service.js';

/** `POST /v1/tasks/{task_id}/review`: approve or reject one proposal version. */
export async function reviewTask(svc: TaskService, c: Ctx): Promise<Response> {
  const p = c.get('principal');
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
}
