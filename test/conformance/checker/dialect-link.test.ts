import { describe, expect, it } from 'vitest';
import { check } from '../../../src/conformance/checker/index.js';
import type { RunEvidenceInput } from '../../../src/conformance/checker/evidence.js';
import { dialectSubmission } from '../../../src/conformance/dialect/batch-input.js';
import { iso, JournalBuilder, T0 } from './support/journal-builder.js';

/**
 * The judge in a wire dialect (docs/dialects.md, "Certifying a client in a dialect"): batches are linked to
 * operations by the custom_ids the harness gave each operation's batch, never by a key or a client field.
 */
const sub = (id: string) =>
  dialectSubmission('openai', { operation_id: id, kind: 'report', input: { id }, create_deadline_ms: 3000, result_deadline_ms: 8000 }, 3);
const ids = (id: string) => [1, 2, 3].map((n) => `${id}-${n}`);

function evidence(opts: { op1Batches: number; op2Sha: string }): RunEvidenceInput {
  const j = new JournalBuilder();
  const batches1 = ['batch_a', 'batch_b'].slice(0, opts.op1Batches);
  let t = T0 + 10;
  for (const [i, b] of batches1.entries()) {
    j.request(t, {
      method: 'POST',
      path: '/openai/v1/files',
      route: 'upload',
      dialect: 'openai',
      custom_ids: ids('op_1'),
      effect: 'none',
      trace_id: 'tr_1',
    });
    // The first create's answer is lost: a naive SDK retried it.
    j.request(t + 1, {
      method: 'POST',
      path: '/openai/v1/batches',
      route: 'create',
      dialect: 'openai',
      custom_ids: ids('op_1'),
      effect: 'created',
      job_id: b,
      trace_id: 'tr_1',
      delivery: i === 0 && batches1.length > 1 ? 'lost' : 'delivered',
    });
    j.transition(t + 1, b, null, 'queued', 'created');
    t += 5;
  }
  j.request(T0 + 12, {
    method: 'POST',
    path: '/openai/v1/batches',
    route: 'create',
    dialect: 'openai',
    custom_ids: ids('op_2'),
    effect: 'created',
    job_id: 'batch_c',
    trace_id: 'tr_2',
  });
  j.transition(T0 + 12, 'batch_c', null, 'queued', 'created');
  for (const b of [...batches1, 'batch_c']) j.transition(T0 + 1000, b, 'queued', 'succeeded');
  const main1 = batches1.at(-1)!;
  j.request(T0 + 1100, {
    method: 'GET',
    path: '/openai/v1/files/file-1/content',
    route: 'results',
    dialect: 'openai',
    effect: 'results_served',
    job_id: main1,
    served_sha256: 'aaa',
    trace_id: 'tr_1',
  });
  j.request(T0 + 1100, {
    method: 'GET',
    path: '/openai/v1/files/file-2/content',
    route: 'results',
    dialect: 'openai',
    effect: 'results_served',
    job_id: 'batch_c',
    served_sha256: 'ccc',
    trace_id: 'tr_2',
  });
  const record = (id: string, batch: string, sha: string, trace: string) => ({
    operation_id: id,
    state: 'succeeded' as const,
    remote_job_id: batch,
    idempotency_key: '',
    request_fingerprint: `sha256:${id}`,
    trace_id: trace,
    result: { sha256: sha, items_total: 3, items_failed: 0 },
    history: [
      { at: iso(T0), actor: 'submit', from: null, to: 'create_pending' as const, cause: 'submit' },
      { at: iso(T0 + 20), actor: 'worker-1', from: 'create_pending' as const, to: 'accepted' as const, cause: 'created' },
      { at: iso(T0 + 1050), actor: 'worker-1', from: 'accepted' as const, to: 'result_collecting' as const, cause: 'done' },
      { at: iso(T0 + 1200), actor: 'worker-1', from: 'result_collecting' as const, to: 'succeeded' as const, cause: 'verified' },
    ],
  });
  return {
    dialect: 'openai',
    principal: { tenant: 'acme', subject: 'agent-1' },
    journal: j.build(),
    submissions: ['op_1', 'op_2'].map((id) => ({ operation_id: id, request: sub(id), submitted_at: iso(T0), exit_code: 0 })),
    records: [record('op_1', main1, 'aaa', 'tr_1'), record('op_2', 'batch_c', opts.op2Sha, 'tr_2')],
    jobs: [...batches1, 'batch_c'].map((job_id) => ({
      job_id,
      state: 'succeeded' as const,
      result: { sha256: 'native-digest', items_total: 3, items_failed: 0 },
    })),
  };
}

const status = (e: RunEvidenceInput, id: string) => check(e).invariants.find((i) => i.id === id)!;

describe('the judge in a dialect links batches by custom_id', () => {
  it('counts two batches for the operation whose create was retried, and none against its neighbour (I1)', () => {
    const i1 = status(evidence({ op1Batches: 2, op2Sha: 'ccc' }), 'I1');
    expect(i1.status).toBe('broken');
    expect(i1.failures.map((f) => f.operation_id)).toEqual(['op_1']);
    expect(i1.failures[0]!.explanation).toMatch(/2 batches \(batch_a, batch_b\).*maxRetries: 0/);
    expect(status(evidence({ op1Batches: 1, op2Sha: 'ccc' }), 'I1').status).toBe('held');
  });

  it('judges the digest of the body the provider served, not the native job digest (I3)', () => {
    expect(status(evidence({ op1Batches: 1, op2Sha: 'ccc' }), 'I3').status).toBe('held');
    const i3 = status(evidence({ op1Batches: 1, op2Sha: 'native-digest' }), 'I3');
    expect(i3.status).toBe('broken');
    expect(i3.failures.map((f) => f.operation_id)).toEqual(['op_2']);
  });

  it('has no key discipline or foreign-id contract to judge in a dialect (I2, I10 not applicable), and reads every request as linked (I14)', () => {
    const v = check(evidence({ op1Batches: 1, op2Sha: 'ccc' }));
    expect(v.invariants.find((i) => i.id === 'I2')!.status).toBe('not_applicable');
    expect(v.invariants.find((i) => i.id === 'I10')!.status).toBe('not_applicable');
    expect(v.invariants.find((i) => i.id === 'I14')!.status).toBe('held');
  });
});
