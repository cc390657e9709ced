import { newOperationRow } from '../../src/reference-client/new-operation-row.js';
import type { OperationRow } from '../../src/reference-client/types.js';

/** An open operation already created and being polled, due at `nextPollAt`: what the store benchmarks fill a store with. */
export function observingRow(i: number, nextPollAt: number, now: number): OperationRow {
  const fresh = newOperationRow(
    {
      operation_id: `op-${i}`,
      kind: 'report',
      input: { account: `acct_${i}` },
      request_fingerprint: `fp-${i}`,
      idempotency_key: `key-${i}`,
      trace_id: `trace-${i}`,
      submitted_at: now - 60_000,
      // Far past any benchmark's end, so no deadline decision mixes into the per-poll cost.
      create_deadline_at: now + 600_000_000,
      result_deadline_at: now + 600_000_000,
    },
    {
      remote_state: 'running',
      remote_job_id: `job-${i}`,
      next_poll_at: nextPollAt,
      attempt: 1,
      poll_count: 1,
      create_attempts: 1,
      last_create_at: now - 60_000,
    },
  );
  // Written by raw INSERTs (a store reaches observing only by moves).
  return { ...fresh, state: 'observing' };
}
