import type { Hono } from 'hono';
import type { Env } from '../../http/context.js';
import type { DialectDeps } from '../shared.js';
import { batchResults, cancelBatch, createBatch, deleteBatch, listBatches, readBatch } from './batches.js';

/** Anthropic Message Batches at `/anthropic/v1` (an SDK's `baseURL` is `<root>/anthropic`). */
export function registerAnthropic(app: Hono<Env>, deps: DialectDeps): void {
  const base = '/anthropic/v1/messages/batches';
  app.post(base, (c) => createBatch(deps, c));
  app.get(base, (c) => listBatches(deps, c));
  app.get(`${base}/:batch_id`, (c) => readBatch(deps, c));
  app.delete(`${base}/:batch_id`, (c) => deleteBatch(deps, c));
  app.post(`${base}/:batch_id/cancel`, (c) => cancelBatch(deps, c));
  app.get(`${base}/:batch_id/results`, (c) => batchResults(deps, c));
}
