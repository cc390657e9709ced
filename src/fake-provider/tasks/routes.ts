import type { Hono } from 'hono';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import { seam } from '../http/seam/index.js';
import { methodNotAllowed } from '../module.js';
import { applyTask, describeApply } from './apply-route.js';
import { createTask, describeCreateTask } from './create-route.js';
import { readAudit, readObject, readTask } from './read-routes.js';
import { reviewTask } from './review-route.js';
import type { TaskService } from './task-service.js';

/** The tasks API of tasks-api.md, each route behind the fault seam under its fault-route name. */
export function registerTaskRoutes(app: Hono<Env>, core: ProviderCore, svc: TaskService): void {
  app.get('/v1/objects/:object_ref', seam(core, 'object_read', { faults: false }), (c) => readObject(svc, c));
  app.post('/v1/tasks', seam(core, 'task_create', { describe: describeCreateTask, hold: true }), (c) => createTask(core, svc, c));
  app.get('/v1/tasks/:task_id', seam(core, 'task_read'), (c) => readTask(core, svc, c));
  app.get('/v1/tasks/:task_id/audit', seam(core, 'task_read'), (c) => readAudit(svc, c));
  app.post('/v1/tasks/:task_id/review', seam(core, 'review'), (c) => reviewTask(svc, c));
  app.post('/v1/tasks/:task_id/apply', seam(core, 'apply', { describe: describeApply, hold: true }), (c) => applyTask(core, svc, c));
  methodNotAllowed(app, [
    ['/v1/objects/:object_ref', 'GET'],
    ['/v1/tasks', 'POST'],
    ['/v1/tasks/:task_id', 'GET'],
    ['/v1/tasks/:task_id/audit', 'GET'],
    ['/v1/tasks/:task_id/review', 'POST'],
    ['/v1/tasks/:task_id/apply', 'POST'],
  ]);
}
