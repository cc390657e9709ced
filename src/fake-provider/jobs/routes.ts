import type { Hono } from 'hono';
import type { ProviderCore } from '../core.js';
import type { Env } from '../http/context.js';
import { seam } from '../http/seam/index.js';
import { methodNotAllowed } from '../module.js';
import { cancelJob } from './cancel-route.js';
import { createJob, describeCreate } from './create-route.js';
import { FinalAnswers } from './final-answers.js';
import { fetchResults, findJobs, readJob } from './read-routes.js';

/** The jobs API of provider-api.md, each route behind the fault seam under its fault-route name. */
export function registerJobRoutes(app: Hono<Env>, core: ProviderCore): void {
  const finals = new FinalAnswers();
  app.post('/v1/jobs', seam(core, 'create', { describe: describeCreate, hold: true }), (c) => createJob(core, c));
  app.get('/v1/jobs', seam(core, 'list'), (c) => findJobs(core, c));
  app.get('/v1/jobs/:job_id', seam(core, 'status'), (c) => readJob(core, c, finals));
  app.post('/v1/jobs/:job_id/cancel', seam(core, 'cancel'), (c) => cancelJob(core, c));
  app.get('/v1/jobs/:job_id/results', seam(core, 'results'), (c) => fetchResults(core, c));
  methodNotAllowed(app, [
    ['/v1/jobs', 'GET, POST'],
    ['/v1/jobs/:job_id', 'GET'],
    ['/v1/jobs/:job_id/cancel', 'POST'],
    ['/v1/jobs/:job_id/results', 'GET'],
  ]);
}
