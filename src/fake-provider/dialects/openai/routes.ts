import type { Hono } from 'hono';
import type { Env } from '../../http/context.js';
import type { DialectDeps } from '../shared.js';
import { cancelBatch, createBatch, listBatches, readBatch } from './batches.js';
import { fileContent, readFile, uploadFile } from './files.js';

/** OpenAI Files and Batches at `/openai/v1` (an SDK's `baseURL`), fault route names as in dialects.md. */
export function registerOpenAI(app: Hono<Env>, deps: DialectDeps): void {
  const base = '/openai/v1';
  app.post(`${base}/files`, (c) => uploadFile(deps, c));
  app.get(`${base}/files/:file_id`, (c) => readFile(deps, c));
  app.get(`${base}/files/:file_id/content`, (c) => fileContent(deps, c));
  app.post(`${base}/batches`, (c) => createBatch(deps, c));
  app.get(`${base}/batches`, (c) => listBatches(deps, c));
  app.get(`${base}/batches/:batch_id`, (c) => readBatch(deps, c));
  app.post(`${base}/batches/:batch_id/cancel`, (c) => cancelBatch(deps, c));
}
