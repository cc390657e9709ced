import type { Hono } from 'hono';
import type { Ctx, Env } from '../../http/context.js';
import { seam } from '../../http/seam/index.js';
import type { Principal } from '../../../contract/principals.js';
import type { DialectDeps } from '../shared.js';
import { cancelBatch, createBatch, describeCreate, listBatches, readBatch } from './batches.js';
import { deleteFile, fileContent, listFiles, readFile, uploadFile } from './files.js';

/** OpenAI Files and Batches at `/openai/v1` (an SDK's `baseURL`), each behind the fault seam under dialects.md's route name. */
export function registerOpenAI(app: Hono<Env>, deps: DialectDeps): void {
  const { core } = deps;
  const base = '/openai/v1';
  const describe = (c: Ctx, p: Principal) => describeCreate(deps, c, p);
  app.post(`${base}/files`, seam(core, 'upload'), (c) => uploadFile(deps, c));
  app.get(`${base}/files`, seam(core, 'list'), (c) => listFiles(deps, c));
  app.get(`${base}/files/:file_id`, seam(core, 'status'), (c) => readFile(deps, c));
  app.delete(`${base}/files/:file_id`, seam(core, 'delete'), (c) => deleteFile(deps, c));
  app.get(`${base}/files/:file_id/content`, seam(core, 'results'), (c) => fileContent(deps, c));
  app.post(`${base}/batches`, seam(core, 'create', { describe }), (c) => createBatch(deps, c, describe));
  app.get(`${base}/batches`, seam(core, 'list'), (c) => listBatches(deps, c));
  app.get(`${base}/batches/:batch_id`, seam(core, 'status'), (c) => readBatch(deps, c));
  app.post(`${base}/batches/:batch_id/cancel`, seam(core, 'cancel'), (c) => cancelBatch(deps, c));
}
