import type { OperationRow } from './types.js';

/** What only the submitter knows about a new operation; everything else starts at its zero. */
export type OperationIdentity = Pick<
  OperationRow,
  | 'operation_id'
  | 'kind'
  | 'input'
  | 'request_fingerprint'
  | 'idempotency_key'
  | 'trace_id'
  | 'submitted_at'
  | 'create_deadline_at'
  | 'result_deadline_at'
>;

/** A record before it is stored: its state is not the caller's to give, the store writes the submit line's. */
export type NewOperationRow = Omit<OperationRow, 'state'>;

/**
 * A freshly submitted operation: nothing sent, nothing learnt, no lease. One place builds it, so a column added to
 * the record gets its starting value once (the client, its tests and the store benchmarks all start from here;
 * `over` sets fields for a test or a benchmark; a state other than the first is only ever reached by moves).
 */
export function newOperationRow(id: OperationIdentity, over: Partial<NewOperationRow> = {}): NewOperationRow {
  return {
    ...id,
    remote_state: null,
    cancel: null,
    remote_job_id: null,
    webhook_url: null,
    conflicting_job_id: null,
    next_poll_at: id.submitted_at,
    not_before: 0,
    attempt: 0,
    poll_count: 0,
    read_failures: 0,
    create_attempts: 0,
    last_create_at: null,
    cancel_sends: 0,
    cancel_attempt: null,
    collect_attempts: 0,
    expected_result: null,
    result_sha256: null,
    result_location: null,
    items_total: null,
    items_failed: null,
    remote_progress: null,
    reason: null,
    lease_owner: null,
    lease_expires_at: null,
    fencing_token: 0,
    ...over,
  };
}
