import { describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../src/contract/index.js';
import { checkTasks, type TaskEvidence } from '../../../src/conformance/tasks/index.js';

let seq = 0;
function req(p: Partial<RequestEntry>): RequestEntry {
  seq += 1;
  return {
    seq,
    at: '2026-01-01T00:00:00.000Z',
    type: 'request',
    received_at: '2026-01-01T00:00:00.000Z',
    request_id: `req_${seq}`,
    method: 'GET',
    path: '/',
    route: null,
    tenant: 'acme',
    subject: 'agent-1',
    idempotency_key: null,
    trace_id: null,
    worker_id: null,
    fingerprint: null,
    effect: 'none',
    job_id: null,
    status: 200,
    code: null,
    delivery: 'delivered',
    fault: null,
    job_state: null,
    retry_after: null,
    client_ref: null,
    task_id: 'task_1',
    task_state: null,
    ...p,
  };
}
const create = () => req({ route: 'task_create', effect: 'created', idempotency_key: 'ck', status: 202, task_state: 'queued' });
const look = (state: string) => req({ route: 'task_read', effect: 'read', task_state: state });
const rev = (state: string) => req({ route: 'review', effect: 'reviewed', subject: 'reviewer-1', task_state: state });
const apply = (p: Partial<RequestEntry> = {}) =>
  req({
    route: 'apply',
    method: 'POST',
    idempotency_key: 'ak',
    effect: 'none',
    status: 409,
    code: 'approval_required',
    task_state: 'awaiting_review',
    ...p,
  });

function evidence(journal: RequestEntry[], harness: TaskEvidence['harness'] = []): TaskEvidence {
  return {
    journal,
    client: { tenant: 'acme', subject: 'agent-1', ops: [] },
    provider: {
      tasks: [
        {
          task_id: 'task_1',
          tenant: 'acme',
          state: 'awaiting_review',
          object_ref: 'o',
          initiator: 'agent-1',
          result: null,
          review: null,
          application: null,
        },
      ],
      objects: [],
    },
    harness,
  };
}

describe('checkTasks T2/T3: what the client could know', () => {
  it('apply right after create: T2', () => {
    expect(checkTasks(evidence([create(), look('awaiting_review'), apply()])).failed).toContain('T2');
  });

  it('approved, seen, applied: no T2', () => {
    const v = checkTasks(
      evidence([create(), rev('approved'), look('approved'), apply({ effect: 'applied', status: 200, code: null, task_state: 'applied' })]),
    );
    expect(v.results.T2.status).toBe('held');
  });

  it('a revoke after the client last saw approved is a race it could not see: not T2', () => {
    expect(checkTasks(evidence([create(), rev('approved'), look('approved'), rev('awaiting_review'), apply()])).results.T2.status).toBe(
      'held',
    );
  });

  it('a revoke the client saw (it read awaiting_review) and applied anyway: T2', () => {
    expect(
      checkTasks(evidence([create(), rev('approved'), look('approved'), rev('awaiting_review'), look('awaiting_review'), apply()])).failed,
    ).toContain('T2');
  });

  it('after stale_object_version, another apply without a new approval: T3; with a new approval: fine', () => {
    const base = [create(), rev('approved'), look('approved'), apply({ code: 'stale_object_version' }), look('awaiting_review')];
    expect(checkTasks(evidence([...base, apply({ code: 'stale_object_version' })])).failed).toContain('T3');
    seq = 100;
    const ok = [
      create(),
      rev('approved'),
      look('approved'),
      apply({ code: 'stale_object_version' }),
      look('awaiting_review'),
      rev('approved'),
      look('approved'),
      apply({ effect: 'applied', status: 200, code: null }),
    ];
    expect(checkTasks(evidence(ok)).results.T3.status).toBe('held');
  });

  it('an object edit by the harness after the approval the client saw, then an apply after it saw the redraft: T3', () => {
    seq = 200;
    const j = [create(), rev('approved')];
    const edit = { after_seq: j[1]!.seq, at: '2026-01-01T00:00:00.000Z', kind: 'put_object' as const, object_ref: 'o', tenant: 'acme' };
    j.push(look('awaiting_review'), apply({ code: 'stale_object_version' }));
    expect(checkTasks(evidence(j, [edit])).failed).toContain('T3');
  });

  it('a same-key retry after a lost apply answer is a reconciliation, not a new decision', () => {
    seq = 300;
    const j = [
      create(),
      rev('approved'),
      look('approved'),
      apply({ effect: 'applied', delivery: 'lost', code: null }),
      rev('awaiting_review'),
      look('awaiting_review'),
      apply({ effect: 'replayed', status: 200, code: null }),
    ];
    const v = checkTasks(evidence(j));
    expect(v.results.T2.status).toBe('held');
    expect(v.results.T5.status).toBe('held');
  });

  it('two apply keys, or the create key as apply key: T5', () => {
    seq = 400;
    expect(
      checkTasks(evidence([create(), rev('approved'), look('approved'), apply({ delivery: 'lost' }), apply({ idempotency_key: 'ak2' })]))
        .failed,
    ).toContain('T5');
    expect(checkTasks(evidence([create(), rev('approved'), look('approved'), apply({ idempotency_key: 'ck' })])).failed).toContain('T5');
  });
});
