import type { z } from 'zod';
import { JobSchema } from '../jobs.js';
import { TaskViewSchema } from '../tasks.js';
import { CONTROL_ROUTES } from './control-routes.js';
import { JOB_ROUTES } from './jobs-routes.js';
import type { RouteDoc } from './route-doc.js';
import { TASK_ROUTES } from './tasks-routes.js';

export type { Answer, Api, RouteDoc } from './route-doc.js';

/**
 * Every HTTP route of the native jobs API, the tasks API and the control API, described by the same zod schemas the
 * provider validates with and the clients parse with. `document.ts` turns this table into OpenAPI 3.1; a test holds
 * the table to the routes the provider's app really serves.
 */
export const ROUTES: readonly RouteDoc[] = [...JOB_ROUTES, ...TASK_ROUTES, ...CONTROL_ROUTES];

/** Component names for schemas that appear in more than one place, so generated clients get one type each. */
export const NAMED_SCHEMAS: ReadonlyArray<[string, z.ZodType]> = [
  ['Job', JobSchema],
  ['TaskView', TaskViewSchema],
];
