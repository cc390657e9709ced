import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BehaviorSchema } from '../../../src/contract/behavior.js';
import { isTerminal, JOB_STATES, type JobState } from '../../../src/contract/jobs.js';
import { resultDescriptor } from '../../../src/fake-provider/engine/results.js';
import { renderView } from '../../../src/fake-provider/profiles/view.js';
import type { JobRow } from '../../../src/fake-provider/store/jobs-rows.js';
import type { OperationRow } from '../../../src/reference-client/types.js';
import { echoes } from '../../../src/reference-client/wire/profile-find.js';
import { createBody } from '../../../src/reference-client/wire/profile-request.js';
import { ndjsonOf, verifyItems } from '../../../src/reference-client/wire/profile-results.js';
import { inlineItems, profileJob } from '../../../src/reference-client/wire/profile-view.js';
import { inputFor, PROFILES, profileOf } from './profile-rig.js';

/**
 * The provider renders a job's view from a profile and the client reads it back from the same profile: for any job
 * in any state, the client sees the job's own id, a state of the same outcome, progress within the job's items, the
 * results it can verify (inline items against the announced digest and counts), and a view that its lookup would
 * recognise as its own create. The provider and the client never disagree about a profile.
 */
const NOW = Date.parse('2026-12-01T12:00:00Z');

function jobRow(p: ReturnType<typeof profileOf>, r: OperationRow, state: JobState, items: number, failed: number, at: number): JobRow {
  const behavior = BehaviorSchema.parse({ items, items_failed: failed, duration_ms: 10_000 });
  const job_id = 'job_rt1';
  return {
    seq: 1,
    job_id,
    tenant: 't',
    subject: 's',
    kind: `profile.${p.name}`,
    input: { profile: p.name, origin: 'http://127.0.0.1:1', request: createBody(p, r) },
    client_ref: null,
    idempotency_key: r.idempotency_key,
    trace_id: r.trace_id,
    webhook_url: null,
    behavior,
    state,
    created_at: NOW - 5000,
    updated_at: NOW - 5000 + at,
    running_at: NOW - 4000,
    progress_at: null,
    finish_at: null,
    cancel_requested_at: state === 'cancelling' || state === 'cancelled' ? NOW - 1000 : null,
    cancel_effective_at: null,
    next_step_at: null,
    result: state === 'succeeded' ? resultDescriptor(job_id, behavior) : null,
    error: state === 'failed' ? { code: 'job_failed', message: 'it broke' } : null,
    finished_at: isTerminal(state) ? NOW - 5000 + at : null,
    results_fetched: 0,
  };
}

/** What the client may read a state as: the same, or (an API without that state) its nearest outcome. */
const READS: Record<JobState, JobState[]> = {
  queued: ['queued', 'running'],
  running: ['running', 'queued'],
  cancelling: ['cancelling', 'running'],
  succeeded: ['succeeded'],
  failed: ['failed'],
  cancelled: ['cancelled'],
  expired: ['expired', 'failed'],
};

describe.each(PROFILES)('profile %s: served views read back', (nameOrFile) => {
  const p = profileOf(nameOrFile);
  it('id, state, progress, results and echo agree for any job', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...JOB_STATES),
        fc.integer({ min: 0, max: 6 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }))),
        fc.integer({ min: 0, max: 4000 }),
        (state, [items, failed], at) => {
          const r = {
            operation_id: 'op_rt',
            kind: 'report',
            trace_id: 'tr_rt',
            idempotency_key: 'idem_rt',
            input: {},
          } as unknown as OperationRow;
          r.input = inputFor(p, r.operation_id);
          const row = jobRow(p, r, state, items, failed, at);
          const view = renderView(p, row, NOW);
          const job = profileJob(p, view, r, NOW);
          expect(job, JSON.stringify(view)).not.toBeNull();
          expect(job!.job_id).toBe(row.job_id);
          expect(READS[state]).toContain(job!.state);
          expect(job!.progress.completed).toBeLessThanOrEqual(Math.max(job!.progress.total, 0));
          expect(echoes(p, view, createBody(p, r))).toBe(true);
          if (state !== 'succeeded') return;
          expect(job!.result).not.toBeNull();
          const inline = inlineItems(p, view);
          if (p.results.mode === 'inline') {
            expect(inline).not.toBeNull();
            const v = verifyItems(inline!, ndjsonOf(inline!), { ...job!.result!, url: '' });
            expect(v).toEqual({ ok: true, sha256: row.result!.sha256, items_total: items, items_failed: failed });
          } else {
            expect(job!.result!.url.startsWith(p.prefix)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
