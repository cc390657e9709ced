import type { Hono } from 'hono';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import type { Principal } from '../../contract/principals.js';
import { taskControl } from './control.js';
import { TaskService } from './task-service.js';

export { TaskService } from './task-service.js';
export { registerTaskRoutes } from './routes.js';
export type { ObjectRow, TaskRow } from './model.js';
export { makeDraft, mergePatch, proposalSha } from './draft.js';
export { TASK_TRANSITIONS, canTransition, needsRedraft, reviewOutcome, applyGate } from './task-machine.js';

/**
 * Wire the tasks API into a provider core: the service (stored in the core's database, on its clock), its control
 * additions, and a reset that also forgets tasks and objects and restores the initial token table.
 */
export function attachTasks(core: ProviderCore): { service: TaskService; control: (app: Hono<Env>) => void } {
  const initialTokens: Record<string, Principal> = { ...core.tokens.tokens };
  const service = new TaskService({ db: core.db, clock: core.clock, ids: core.ids, settings: core.settings, principals: () => core.tokens.tokens });
  core.tasks = service;
  const baseReset = core.reset;
  core.reset = () => {
    baseReset();
    service.reset();
    core.tokens.tokens = { ...initialTokens };
  };
  service.tick();
  return { service, control: taskControl(core, service) };
}
