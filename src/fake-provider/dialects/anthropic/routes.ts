import type { Hono } from 'hono';
import type { Env } from '../../http/context.js';
import { seam } from '../../http/seam/index.js';
import type { DialectDeps } from '../shared.js';
import { batchResults, cancelBatch, createBatch, deleteBatch, describeCreate, listBatches, readBatch } from './batches.js';

/** Anthropic Message Batches at `/anthropic/v1` (an SDK's `baseURL` is `<root>/anthropic`), behind the fault seam. */
export function registerAnthropic(app: Hono<Env>, deps: DialectDeps): void {
  const { core } = deps;
  const base = '/anthropic/v1/messages/batches';
  app.post(base, seam(core, 'create', { describe: describeCreate }), (c) => createBatch(deps, c));
  app.get(base, seam(core, 'list'), (c) => listBatches(deps, c));
  app.get(`${base}/:batch_id`, seam(core, 'status'), (c) => readBatch(deps, c));
  // dialects.md names no fault route for DELETE; `delete` is one (an extension), so a plan can still aim at it.
  app.delete(`${base}/:batch_id`, seam(core, 'delete'), (c) => deleteBatch(deps, c));
  app.post(`${base}/:batch_id/cancel`, seam(core, 'cancel'), (c) => cancelBatch(deps, c));
  app.get(`${base}/:batch_id/results`, seam(core, 'results'), (c) => batchResults(deps, c));
}
