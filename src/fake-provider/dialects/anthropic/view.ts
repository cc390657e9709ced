import { isoTime } from '../../../lib/clock.js';
import type { JobRow } from '../../store/jobs-repo.js';
import { outcomeCounts } from '../lines.js';
import type { BatchRow } from '../store.js';

const DAY_MS = 24 * 3600 * 1000;

export function processingStatus(job: JobRow): 'in_progress' | 'canceling' | 'ended' {
  if (job.state === 'queued' || job.state === 'running') return 'in_progress';
  return job.state === 'cancelling' ? 'canceling' : 'ended';
}

/** The MessageBatch object (@anthropic-ai/sdk `MessageBatch`); `results_url` is absolute, back to this server. */
export function anthropicBatchView(job: JobRow, batch: BatchRow, now: number, origin: string): Record<string, unknown> {
  const status = processingStatus(job);
  // A request whose params Anthropic would refuse errors when it runs (batch.invalid_lines).
  const c = outcomeCounts(job, batch.request_count, now, batch.invalid_lines);
  return {
    id: batch.batch_id,
    type: 'message_batch',
    processing_status: status,
    request_counts: { processing: c.processing, succeeded: c.succeeded, errored: c.errored, canceled: c.canceled, expired: c.expired },
    ended_at: status === 'ended' && job.finished_at !== null ? isoTime(job.finished_at) : null,
    created_at: isoTime(job.created_at),
    expires_at: isoTime(job.created_at + DAY_MS),
    archived_at: null,
    cancel_initiated_at: job.cancel_requested_at === null ? null : isoTime(job.cancel_requested_at),
    results_url: status === 'ended' ? `${origin}/anthropic/v1/messages/batches/${batch.batch_id}/results` : null,
  };
}
