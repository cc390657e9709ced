import { describe, expect, it } from 'vitest';
import { shownStates } from '../../../src/conformance/checker/helpers.js';
import type { RequestEntry } from '../../../src/contract/journal.js';

const base: RequestEntry = {
  seq: 1,
  at: '2026-01-01T00:00:01.000Z',
  received_at: '2026-01-01T00:00:01.000Z',
  type: 'request',
  request_id: 'req_1',
  method: 'GET',
  path: '/v1/jobs',
  route: 'list',
  tenant: 'acme',
  subject: 'agent-1',
  idempotency_key: null,
  trace_id: 'tr_1',
  worker_id: 'worker-1',
  fingerprint: null,
  effect: 'read',
  job_id: null,
  status: 200,
  code: null,
  delivery: 'delivered',
  fault: null,
  job_state: null,
  retry_after: null,
  client_ref: 'op_1',
};

describe('shownStates: what an answer told the client about a job', () => {
  it('a find answer shows the state of every job it listed', () => {
    const r: RequestEntry = {
      ...base,
      listed: [
        { job_id: 'job_a', state: 'succeeded' },
        { job_id: 'job_b', state: 'running' },
      ],
    };
    expect(shownStates(r, 'job_a')).toEqual(['succeeded']);
    expect(shownStates(r, 'job_b')).toEqual(['running']);
    expect(shownStates(r, 'job_c')).toEqual([]);
  });

  it('a refused find shows nothing', () => {
    expect(shownStates({ ...base, status: 429, listed: [{ job_id: 'job_a', state: 'succeeded' }] }, 'job_a')).toEqual([]);
  });

  it('a status read shows its own job', () => {
    const r: RequestEntry = { ...base, route: 'status', path: '/v1/jobs/job_a', job_id: 'job_a', job_state: 'failed' };
    expect(shownStates(r, 'job_a')).toEqual(['failed']);
    expect(shownStates(r, 'job_b')).toEqual([]);
  });
});
