import type { ProviderCore } from '../core.js';
import type { ProviderModule } from '../module.js';
import { taskControl } from './control.js';
import { registerTaskRoutes } from './routes.js';
import { TaskService } from './task-service.js';

export { TaskService } from './task-service.js';
export { registerTaskRoutes } from './routes.js';
export type { ObjectRow, TaskRow } from './model.js';
export { makeDraft, mergePatch, proposalSha } from './draft.js';
export { TASK_TRANSITIONS, canTransition, needsRedraft, reviewOutcome, applyGate } from './task-machine.js';

export type TasksModule = ProviderModule & { service: TaskService };

/**
 * The tasks API (tasks-api.md) as a provider module, laid out like jobs: routes, control additions, life cycle.
 * Its service keeps tasks and objects in the core's database, on its clock, and reads the live token table.
 */
export function createTasksModule(core: ProviderCore): TasksModule {
  const service = new TaskService({
    db: core.db,
    clock: core.clock,
    ids: core.ids,
    settings: core.settings,
    principals: () => core.tokens.tokens,
  });
  return {
    name: 'tasks',
    service,
    routes: (app) => registerTaskRoutes(app, core, service),
    control: taskControl(core, service),
    tick: () => service.tick(),
    reset: () => service.reset(),
    close: () => service.close(),
  };
}
