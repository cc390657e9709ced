import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/contract/journal.js';
import { EventTracker } from '../../../src/conformance/runner/triggers.js';

let seq = 0;
function request(fields: Partial<Extract<JournalEntry, { type: 'request' }>>): JournalEntry {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ++seq)).toISOString();
  return {
    seq,
    at,
    type: 'request',
    received_at: at,
    request_id: `r${seq}`,
    method: 'GET',
    path: '/v1/jobs',
    route: 'status',
    tenant: 't',
    subject: 's',
    idempotency_key: null,
    trace_id: null,
    worker_id: null,
    fingerprint: null,
    effect: 'read',
    job_id: null,
    status: 200,
    code: null,
    delivery: 'delivered',
    fault: null,
    job_state: 'running',
    retry_after: null,
    client_ref: null,
    ...fields,
  } as JournalEntry;
}

describe('EventTracker worker_acted', () => {
  const acted = (worker: string) => ({ event: 'worker_acted' as const, worker, operation: 'op_1' });

  it('is seen at the first request of that worker naming a job of the operation, not of another worker or job', () => {
    const t = new EventTracker();
    t.setKey('op_1', 'key-1');
    const create = request({
      route: 'create',
      method: 'POST',
      idempotency_key: 'key-1',
      worker_id: 'worker-1',
      effect: 'created',
      job_id: 'job_a',
    });
    t.ingest(create);
    expect(t.firstSeen(acted('worker-1'))).toBe(Date.parse(create.at));
    expect(t.firstSeen(acted('worker-2'))).toBeUndefined();
    t.ingest(request({ worker_id: 'worker-2', job_id: 'job_other' }));
    t.ingest(request({ worker_id: null, job_id: 'job_a' }));
    expect(t.firstSeen(acted('worker-2'))).toBeUndefined();
    const poll = request({ worker_id: 'worker-2', job_id: 'job_a' });
    t.ingest(poll);
    t.ingest(request({ worker_id: 'worker-2', job_id: 'job_a' }));
    expect(t.firstSeen(acted('worker-2'))).toBe(Date.parse(poll.at));
  });

  it('counts a create matched only once the key is learnt', () => {
    const t = new EventTracker();
    const create = request({
      route: 'create',
      method: 'POST',
      idempotency_key: 'key-1',
      worker_id: 'worker-2',
      effect: 'replayed',
      job_id: 'job_a',
    });
    t.ingest(create);
    expect(t.firstSeen(acted('worker-2'))).toBeUndefined();
    t.setKey('op_1', 'key-1');
    expect(t.firstSeen(acted('worker-2'))).toBe(Date.parse(create.at));
  });
});
