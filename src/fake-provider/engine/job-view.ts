import { isoTime } from '../../lib/clock.js';
import type { Job } from '../../contract/jobs.js';
import type { JobViewRow } from '../store/jobs-repo.js';
import { progressAt } from './lifecycle.js';

/** The public Job object of a stored job, as seen at `now` (progress is a function of time). */
export function jobView(row: JobViewRow, now: number): Job {
  return {
    job_id: row.job_id,
    kind: row.kind,
    state: row.state,
    client_ref: row.client_ref,
    trace_id: row.trace_id,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    progress: progressAt(row, now),
    cancel_requested_at: row.cancel_requested_at === null ? null : isoTime(row.cancel_requested_at),
    result: row.state === 'succeeded' ? row.result : null,
    error: row.state === 'failed' ? row.error : null,
  };
}
