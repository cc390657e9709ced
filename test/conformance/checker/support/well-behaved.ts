import fc from 'fast-check';
import type { JobState } from '../../../../src/contract/jobs.js';
import type { HistoryEntry, OperationRecord, OperationState } from '../../../../src/contract/client-protocol.js';
import type { RunEvidenceInput } from '../../../../src/conformance/checker/index.js';
import { JournalBuilder, T0, iso } from './journal-builder.js';

/** What happens to one operation, from the provider's side and the harness's. */
export interface OpPlan {
  create: 'ok' | 'lost_then_list' | 'lost_then_replay' | 'error_after_commit' | 'fail_503' | 'rate_429';
  sync: boolean;
  outcome: 'succeeded' | 'failed' | 'expired' | 'never';
  durationMs: number;
  itemsFailed: number;
  /** A cancel intent this long after the job's creation; `wins` if it lands before the commit point. */
  cancel?: { afterMs: number; wins: boolean; deadlineMs: number };
  polls429: number;
  webhooks: 'none' | 'normal' | 'duplicate' | 'dropped' | 'reordered';
  resultDeadlineMs: number;
}

const TERMINAL: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'expired'];

/** The provider's job, as times: its state at any moment follows from these. */
interface JobTimeline {
  createdAt: number;
  runningAt: number;
  cancellingAt: number;
  finalAt: number;
  finalState: JobState;
}
function stateAt(j: JobTimeline, t: number): JobState {
  if (t >= j.finalAt) return j.finalState;
  if (t >= j.cancellingAt) return 'cancelling';
  return t >= j.runningAt ? 'running' : 'queued';
}

/**
 * A correct client, written as straight-line code over a simulated provider: same key and body on every
 * create, reconciliation after a lost answer, Retry-After honoured, capped backoff polling, one cancel, a last
 * read at each deadline, results fetched once. The checker must find nothing wrong with what it produces.
 */
function simulateOp(jb: JournalBuilder, opId: string, plan: OpPlan, t0: number) {
  const key = `idem_${opId}`;
  const trace = `tr_${opId}`;
  const job_id = `job_${opId}`;
  const fp = `sha256:${opId}`;
  const history: HistoryEntry[] = [];
  let t = t0;
  const h = (to: OperationState, cause: string, actor = 'worker-1') =>
    history.push({ at: iso(t), actor, from: history.at(-1)?.to ?? null, to, cause });
  const create = (fields: Parameters<JournalBuilder['request']>[1] extends infer F ? Partial<F> : never) =>
    jb.request(t, {
      method: 'POST',
      path: '/v1/jobs',
      route: 'create',
      idempotency_key: key,
      trace_id: trace,
      fingerprint: fp,
      client_ref: opId,
      ...fields,
    });
  const req = (route: 'status' | 'cancel' | 'results' | 'list', fields: Partial<Parameters<JournalBuilder['request']>[1]> = {}) =>
    jb.request(t, {
      method: route === 'cancel' ? 'POST' : 'GET',
      path: `/v1/jobs/${job_id}${route === 'status' ? '' : `/${route}`}`,
      route,
      trace_id: trace,
      job_id,
      ...fields,
    });

  h('create_pending', 'submit', 'cli');
  t += 10;
  if (plan.create === 'fail_503' || plan.create === 'rate_429') {
    const status = plan.create === 'fail_503' ? 503 : 429;
    create({ effect: 'none', status, code: 'unavailable', retry_after: 1 });
    t += 1020;
  }
  const sync = plan.sync && !plan.create.startsWith('lost') && plan.create !== 'error_after_commit';
  const job: JobTimeline = {
    createdAt: t,
    runningAt: t + 10,
    cancellingAt: Infinity,
    finalAt: plan.outcome === 'never' ? Infinity : t + plan.durationMs,
    finalState: plan.outcome === 'never' ? 'running' : plan.outcome,
  };
  if (sync) Object.assign(job, { runningAt: t, finalAt: t, finalState: 'succeeded' });
  if (plan.create === 'lost_then_list' || plan.create === 'lost_then_replay') {
    create({ effect: 'created', status: 202, job_id, job_state: 'queued', delivery: 'lost' });
    t += 30;
    h('create_unknown', 'create answer lost');
    t += 5;
    if (plan.create === 'lost_then_list') {
      h('reconciliation', 'look the key up');
      jb.request(t, { method: 'GET', path: `/v1/jobs?idempotency_key=${key}`, route: 'list', trace_id: trace });
      t += 5;
    } else {
      create({ effect: 'replayed', status: 202, job_id, job_state: 'queued' });
    }
    h('accepted', 'job found');
  } else if (plan.create === 'error_after_commit') {
    create({ effect: 'created', status: 500, code: 'internal_error', job_id });
    t += 20;
    h('create_unknown', '500 on create');
    create({ effect: 'replayed', status: 202, job_id, job_state: 'queued' });
    h('accepted', 'replayed create');
  } else if (sync) {
    create({ effect: 'created', status: 200, job_id, job_state: 'succeeded' });
    h('result_collecting', 'synchronous completion');
  } else {
    create({ effect: 'created', status: 202, job_id, job_state: 'queued' });
    h('accepted', 'create answered');
  }

  const resultBy = t0 + plan.resultDeadlineMs;
  const cancelAt = plan.cancel ? job.createdAt + plan.cancel.afterMs : Infinity;
  let cancelBy = Infinity;
  let seen: JobState | null = sync ? 'succeeded' : null;
  let delay = 200;
  let polls = 0;
  let next = t + 50;
  let notBefore = -Infinity;
  while (!seen) {
    const limit = Math.min(resultBy, cancelBy);
    // A cancel intent wakes the worker at once.
    if (cancelBy === Infinity && cancelAt < next && cancelAt < limit) next = Math.max(t, cancelAt, notBefore);
    if (next >= limit) {
      // One last read just before the deadline, unless a Retry-After still forbids it.
      if (notBefore > limit - 1) {
        t = Math.max(t, limit);
        const inCancel = ['cancel_requested', 'cancelling'].includes(history.at(-1)!.to);
        h(inCancel ? 'cancellation_unconfirmed' : 'result_timed_out', inCancel ? 'cancel deadline' : 'result deadline');
        break;
      }
      t = Math.max(t, limit - 1);
      next = limit;
    } else t = Math.max(t, next);
    if (plan.cancel && t >= cancelAt && cancelBy === Infinity) {
      h('cancel_requested', 'cancel intent');
      cancelBy = cancelAt + plan.cancel.deadlineMs;
      const s = stateAt(job, t);
      if (TERMINAL.includes(s)) {
        req('cancel', { effect: 'none', status: 409, code: 'job_terminal', job_state: s });
        seen = s;
        break;
      }
      if (plan.cancel.wins) Object.assign(job, { cancellingAt: t, finalAt: t + 200, finalState: 'cancelled' });
      else job.cancellingAt = t;
      req('cancel', { effect: 'cancel_requested', status: 202, job_state: 'cancelling' });
      t += 5;
      h('cancelling', 'cancel accepted');
      continue;
    }
    if (polls < plan.polls429) {
      polls++;
      req('status', { effect: 'none', status: 429, code: 'rate_limited', retry_after: 1 });
      next = notBefore = t + 1010;
      continue;
    }
    polls++;
    const s = stateAt(job, t);
    req('status', { job_state: s, retry_after: TERMINAL.includes(s) ? null : 1 });
    if (history.at(-1)!.to === 'accepted') h('observing', 'first poll');
    if (TERMINAL.includes(s)) {
      seen = s;
      break;
    }
    if (next === limit && t >= limit - 1) {
      t = Math.max(t, limit);
      const inCancel = ['cancel_requested', 'cancelling'].includes(history.at(-1)!.to);
      h(inCancel ? 'cancellation_unconfirmed' : 'result_timed_out', inCancel ? 'cancel deadline' : 'result deadline');
      break;
    }
    next = t + delay;
    delay = Math.min(delay * 2, 2000);
  }

  let result: OperationRecord['result'] = null;
  t += 10;
  if (seen === 'succeeded') {
    if (history.at(-1)!.to !== 'result_collecting') h('result_collecting', 'job succeeded');
    req('results', { effect: 'results_served' });
    t += 5;
    result = { sha256: `sha_${job_id}`, items_total: 10, items_failed: plan.itemsFailed };
    h('succeeded', 'results verified');
  } else if (seen === 'failed' || seen === 'expired') h('failed', `job ${seen}`);
  else if (seen === 'cancelled') h('cancelled', 'provider confirmed');

  // The provider's side: transitions, then webhooks for them.
  const steps: [number, JobState | null, JobState][] = [
    [job.createdAt, null, 'queued'],
    [job.runningAt, 'queued', 'running'],
  ];
  if (job.cancellingAt < job.finalAt) steps.push([job.cancellingAt, 'running', 'cancelling']);
  if (job.finalAt < Infinity) steps.push([job.finalAt, steps.at(-1)![2], job.finalState]);
  for (const [at, from, to] of steps) jb.transition(at, job_id, from, to);
  const hooks = steps.slice(1);
  hooks.forEach(([at, , to], i) => {
    const type = `job.${to}`;
    if (plan.webhooks === 'none') return;
    if (plan.webhooks === 'reordered') {
      jb.webhook(steps.at(-1)![0] + 3 + (hooks.length - i), job_id, type);
      return;
    }
    jb.webhook(at + 3, job_id, type, plan.webhooks === 'dropped' ? 'dropped' : 'delivered');
    if (plan.webhooks === 'duplicate') jb.webhook(at + 4, job_id, type);
  });

  const record: OperationRecord = {
    operation_id: opId,
    state: history.at(-1)!.to,
    remote_job_id: job_id,
    idempotency_key: key,
    request_fingerprint: fp,
    trace_id: trace,
    result,
    history,
  };
  const finalState = job.finalAt < Infinity ? job.finalState : stateAt(job, Infinity) === 'cancelling' ? 'cancelling' : 'running';
  return {
    record,
    submission: {
      operation_id: opId,
      request: {
        operation_id: opId,
        kind: 'report',
        input: { account: opId },
        create_deadline_ms: 3000,
        result_deadline_ms: plan.resultDeadlineMs,
      },
      submitted_at: iso(t0),
      exit_code: 0,
    },
    cancel: plan.cancel
      ? { operation_id: opId, actor: 'user-1', reason: 'test', cancel_deadline_ms: plan.cancel.deadlineMs, requested_at: iso(cancelAt) }
      : undefined,
    job: {
      job_id,
      state: finalState,
      tenant: 'acme',
      result: finalState === 'succeeded' ? { sha256: `sha_${job_id}`, items_total: 10, items_failed: plan.itemsFailed } : null,
      behavior: { corrupt_digest: false, error_row: false, one_shot_results: false, items_failed: plan.itemsFailed },
    },
  };
}

/** Evidence of a run of the correct client over these plans (op_1, op_2, … submitted 50 ms apart). */
export function simulate(plans: OpPlan[]): RunEvidenceInput {
  const jb = new JournalBuilder();
  const ops = plans.map((p, i) => simulateOp(jb, `op_${i + 1}`, p, T0 + i * 50));
  return {
    scenario: 'simulated',
    principal: { tenant: 'acme', subject: 'agent-1' },
    journal: jb.build(),
    records: ops.map((o) => o.record),
    submissions: ops.map((o) => o.submission),
    cancels: ops.flatMap((o) => (o.cancel ? [o.cancel] : [])),
    harness: [],
    jobs: ops.map((o) => o.job),
  };
}

export const DEFAULT_PLAN: OpPlan = {
  create: 'ok',
  sync: false,
  outcome: 'succeeded',
  durationMs: 1000,
  itemsFailed: 0,
  polls429: 0,
  webhooks: 'none',
  resultDeadlineMs: 8000,
};

export const opPlanArb: fc.Arbitrary<OpPlan> = fc.record(
  {
    create: fc.constantFrom('ok', 'lost_then_list', 'lost_then_replay', 'error_after_commit', 'fail_503', 'rate_429'),
    sync: fc.boolean(),
    outcome: fc.constantFrom('succeeded', 'failed', 'expired', 'never'),
    durationMs: fc.integer({ min: 0, max: 4000 }),
    itemsFailed: fc.integer({ min: 0, max: 3 }),
    cancel: fc.option(
      fc.record({ afterMs: fc.integer({ min: 0, max: 5000 }), wins: fc.boolean(), deadlineMs: fc.integer({ min: 200, max: 3000 }) }),
      { nil: undefined },
    ),
    polls429: fc.integer({ min: 0, max: 3 }),
    webhooks: fc.constantFrom('none', 'normal', 'duplicate', 'dropped', 'reordered'),
    resultDeadlineMs: fc.integer({ min: 1500, max: 10_000 }),
  },
  { requiredKeys: ['create', 'sync', 'outcome', 'durationMs', 'itemsFailed', 'polls429', 'webhooks', 'resultDeadlineMs'] },
);
