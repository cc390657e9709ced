import type { JobRow } from '../../store/jobs-repo.js';
import { outcomeCounts, unixSeconds } from '../lines.js';
import type { BatchRow } from '../store.js';
import { batchUsage, type BatchFacts } from './usage.js';

export type OpenAIBatchStatus =
  | 'validating'
  | 'failed'
  | 'in_progress'
  | 'finalizing'
  | 'completed'
  | 'expired'
  | 'cancelling'
  | 'cancelled';

const DAY_MS = 24 * 3600 * 1000;

/** A succeeding batch spends the last 5 % of its run `finalizing`, as real ones do while their output is written. */
function finalizingFrom(job: JobRow): number {
  return job.behavior.mode === 'sync' ? job.created_at : job.created_at + Math.floor(job.behavior.duration_ms * 0.95);
}

/** A batch that fails does so while `validating`, as real ones do (a bad input file), never half-way through. */
function failsInValidation(job: JobRow, batch: BatchRow): boolean {
  return job.behavior.outcome === 'failed' || batch.errors !== null;
}

export function openaiStatus(job: JobRow, batch: BatchRow, now: number): OpenAIBatchStatus {
  switch (job.state) {
    case 'queued':
      return 'validating';
    case 'running':
      if (failsInValidation(job, batch)) return 'validating';
      return job.behavior.outcome === 'succeeded' && now >= finalizingFrom(job) ? 'finalizing' : 'in_progress';
    case 'cancelling':
      return 'cancelling';
    case 'succeeded':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    case 'expired':
      return 'expired';
  }
}

function at(ms: number | null | undefined): number | null {
  return ms === null || ms === undefined ? null : unixSeconds(ms);
}

/**
 * The Batch object (openai-node `Batch`) of a batch, as seen at `now`. `facts` (usage.ts) add its `model` and
 * `usage`; callers that only need its status or files leave them out.
 */
export function openaiBatchView(job: JobRow, batch: BatchRow, now: number, facts?: BatchFacts): Record<string, unknown> {
  const status = openaiStatus(job, batch, now);
  const n = batch.request_count;
  const counts = outcomeCounts(job, n, now);
  const validating = failsInValidation(job, batch);
  const ended = job.finished_at;
  const startedBy = job.cancel_requested_at ?? ended ?? now;
  const terminalWithFiles = status === 'completed' || status === 'cancelled' || status === 'expired';
  const errorLines = counts.errored + counts.canceled + counts.expired;
  const behaviourFailure = [{ code: 'batch_failed', message: 'The batch failed (simulated by its behaviour).', line: null, param: null }];
  return {
    id: batch.batch_id,
    object: 'batch',
    endpoint: batch.endpoint,
    ...(facts?.model ? { model: facts.model } : {}),
    errors: status === 'failed' ? { object: 'list', data: batch.errors ?? behaviourFailure } : null,
    input_file_id: batch.input_file_id,
    completion_window: batch.completion_window,
    status,
    output_file_id: terminalWithFiles && counts.succeeded > 0 ? batch.output_file_id : null,
    error_file_id: terminalWithFiles && errorLines > 0 ? batch.error_file_id : null,
    created_at: unixSeconds(job.created_at),
    in_progress_at: !validating && job.running_at <= startedBy ? unixSeconds(job.running_at) : null,
    expires_at: unixSeconds(job.created_at + DAY_MS),
    finalizing_at: status === 'completed' || status === 'finalizing' ? unixSeconds(Math.min(finalizingFrom(job), ended ?? now)) : null,
    completed_at: status === 'completed' ? at(ended) : null,
    failed_at: status === 'failed' ? at(ended) : null,
    expired_at: status === 'expired' ? at(ended) : null,
    cancelling_at: at(job.cancel_requested_at),
    cancelled_at: status === 'cancelled' ? at(ended) : null,
    request_counts: validating ? { total: n, completed: 0, failed: 0 } : { total: n, completed: counts.succeeded, failed: errorLines },
    ...(facts ? { usage: batchUsage(facts, validating ? 0 : counts.succeeded) } : {}),
    metadata: batch.metadata,
  };
}
