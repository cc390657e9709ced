import { describe, expect, it } from 'vitest';
import { iso } from './support/journal-builder.js';
import { run } from './support/fixtures.js';
import { addEntry, addRequest, dropRequests, judge, ms, record, requests, setTail, status } from './support/mutate.js';

/** I11–I15: for each, evidence that holds it and evidence that breaks it, and nothing else wrongly flagged. */

describe('I11 verified-results', () => {
  it('holds when a partial batch reports its failed items', () => {
    const v = judge(run({ itemsFailed: 2 }));
    expect(v.broken).toEqual([]);
    expect(status(v, 'I11')).toBe('held');
  });

  it('breaks when a partial batch is reported whole', () => {
    const e = run({ itemsFailed: 2 });
    record(e).result!.items_failed = 0;
    expect(judge(e).broken).toEqual(['I11']);
  });

  it('breaks when corrupt results end succeeded, holds when they end result_validation_failed', () => {
    const bad = run();
    bad.jobs![0]!.behavior!.corrupt_digest = true;
    expect(judge(bad).broken).toEqual(['I11']);
    const good = run();
    good.jobs![0]!.behavior!.error_row = true;
    setTail(record(good), 'result_collecting', [['result_validation_failed', 5]]);
    record(good).result = null;
    expect(judge(good).broken).toEqual([]);
    expect(status(judge(good), 'I11')).toBe('held');
  });
});

describe('I12 deadlines', () => {
  it('holds when a never-ending job times out at its deadline and polling stops', () => {
    const e = run({ outcome: 'never', resultDeadlineMs: 3000 });
    expect(record(e).state).toBe('result_timed_out');
    expect(judge(e).broken).toEqual([]);
    expect(status(judge(e), 'I12')).toBe('held');
  });

  it('breaks when polling goes on after result_timed_out', () => {
    const e = run({ outcome: 'never', resultDeadlineMs: 3000 });
    const poll = requests(e, (r) => r.route === 'status').at(-1)!;
    addRequest(e, poll, ms(poll.at) + 2000);
    expect(judge(e).broken).toEqual(['I12']);
  });

  it('breaks when the operation never ends although the deadline passed long ago', () => {
    const e = run({ outcome: 'never', resultDeadlineMs: 3000 });
    setTail(record(e), 'observing', []);
    const poll = requests(e, (r) => r.route === 'status').at(-1)!;
    addRequest(e, poll, ms(poll.at) + 5000);
    const v = judge(e);
    expect(v.broken).toEqual(['I12']);
    expect(v.invariants[11]!.failures.map((f) => f.explanation).join('\n')).toMatch(/still observing after its result deadline/);
  });

  it('breaks when a create is sent after the create deadline', () => {
    const e = run({ create: 'fail_503' });
    e.submissions[0]!.request.create_deadline_ms = 500;
    expect(judge(e).broken).toEqual(['I12']);
  });

  it('breaks when the client times out before its deadline', () => {
    const e = run({ outcome: 'never', resultDeadlineMs: 3000 });
    const first = ms(record(e).history.find((h) => h.to === 'observing')!.at);
    dropRequests(e, (r) => r.route === 'status' && ms(r.at) > first + 100);
    setTail(record(e), 'observing', [['result_timed_out', 200]]);
    expect(judge(e).broken).toEqual(['I12']);
  });
});

describe('I13 webhook-safety', () => {
  it('holds with duplicate, reordered and dropped webhooks', () => {
    for (const webhooks of ['duplicate', 'reordered', 'dropped'] as const) {
      const v = judge(run({ webhooks }));
      expect(v.broken, webhooks).toEqual([]);
      expect(status(v, 'I13'), webhooks).toBe('held');
    }
  });

  it('is not applicable without webhooks', () => {
    expect(status(judge(run()), 'I13')).toBe('not_applicable');
  });

  it('breaks when results are fetched twice', () => {
    const e = run({ webhooks: 'duplicate' });
    const fetch = requests(e, (r) => r.route === 'results')[0]!;
    addRequest(e, fetch, ms(fetch.at) + 3);
    expect(judge(e).broken).toEqual(['I13']);
  });

  it('holds when an earlier results fetch was answered 500 and the client fetched again', () => {
    const e = run({ webhooks: 'duplicate' });
    const fetch = requests(e, (r) => r.route === 'results')[0]!;
    addRequest(e, fetch, ms(fetch.at) - 5, { status: 500, code: 'internal_error', fault: { rule_id: 'r1', type: 'error_after_commit' } });
    expect(judge(e).broken).toEqual([]);
  });

  it('breaks when the client acts on a webhook without reading the status', () => {
    const e = run({ webhooks: 'duplicate' });
    dropRequests(e, (r) => r.route === 'status' && r.job_state === 'succeeded');
    expect(judge(e).broken).toEqual(['I13']);
  });

  it('breaks (with I3) when a dropped webhook leaves the operation waiting for ever', () => {
    const e = run({ webhooks: 'dropped' });
    const final = requests(e, (r) => r.job_state === 'succeeded')[0]!;
    dropRequests(e, (r) => r.seq >= final.seq);
    setTail(record(e), 'observing', []);
    record(e).result = null;
    addEntry(e, {
      type: 'webhook',
      at: iso(ms(final.at) + 9000),
      event_id: 'evt_late',
      event_type: 'job.succeeded',
      job_id: 'job_op_1',
      url: 'http://127.0.0.1:9000/',
      attempt: 6,
      outcome: 'dropped',
      status: null,
      error: null,
      fault: null,
    });
    expect(judge(e).broken).toEqual(['I3', 'I13']);
  });
});

describe('I13 and I4 with a forged webhook', () => {
  /** A delivery the provider never made, claiming job_op_1 failed, `dt` ms after the create; `outcome` as the client answered. */
  function forged(outcome: 'delivered' | 'failed', dt = 20) {
    const e = run();
    const create = requests(e, (r) => r.route === 'create')[0]!;
    addEntry(e, {
      type: 'webhook',
      at: iso(ms(create.at) + dt),
      event_id: 'evt_forged',
      event_type: 'job.failed',
      job_id: 'job_op_1',
      url: 'http://127.0.0.1:9000/',
      attempt: 1,
      outcome,
      status: outcome === 'delivered' ? 204 : 401,
      error: null,
      fault: { rule_id: 'forge', type: 'forge' },
      forged: 'unsigned',
    });
    return e;
  }

  it('holds when the client refuses the forgery and ends with what the provider says', () => {
    const v = judge(forged('failed'));
    expect(v.broken).toEqual([]);
    expect(status(v, 'I13')).toBe('held');
  });

  it('never counts a forged job.failed as the provider saying so: a client that ends failed on it breaks I4 and I13', () => {
    const e = forged('delivered');
    const r = record(e);
    setTail(r, 'accepted', [['failed', 30]]);
    r.result = null;
    const v = judge(e);
    expect(v.broken).toEqual(expect.arrayContaining(['I4', 'I13']));
    expect(v.invariants[3]!.failures[0]!.explanation).toMatch(/never told it job job_op_1 failed/);
    expect(v.invariants[12]!.failures[0]!.explanation).toMatch(/accepted a forged webhook, #\d+ job.failed unsigned/);
  });
});

describe('I14 trace', () => {
  it('holds with one trace id on every request', () => {
    expect(status(judge(run({ create: 'lost_then_list' })), 'I14')).toBe('held');
  });

  it('breaks when a request carries another trace id', () => {
    const e = run();
    requests(e, (r) => r.route === 'status')[0]!.trace_id = 'tr_other';
    expect(judge(e).broken).toEqual(['I14']);
  });

  it('breaks when the trace id is the idempotency key', () => {
    const e = run();
    record(e).trace_id = record(e).idempotency_key;
    for (const r of requests(e)) r.trace_id = record(e).idempotency_key;
    expect(judge(e).broken).toEqual(['I14']);
  });
});

describe('I15 history', () => {
  it('holds for an append-only history across snapshots', () => {
    const e = run();
    const early = structuredClone(record(e));
    setTail(early, 'observing', []);
    e.records.unshift(early);
    expect(judge(e).broken).toEqual([]);
    expect(status(judge(e), 'I15')).toBe('held');
  });

  it('breaks on a step the state machine does not allow', () => {
    const e = run();
    const fetched = ms(requests(e, (r) => r.route === 'results')[0]!.at);
    setTail(record(e), 'observing', [['succeeded', fetched + 5]]);
    expect(judge(e).broken).toEqual(['I15']);
  });

  it('breaks when time goes back', () => {
    const e = run();
    const h = record(e).history;
    h.at(-1)!.at = iso(ms(h.at(-2)!.at) - 10);
    expect(judge(e).broken).toEqual(['I15']);
  });

  it('breaks when a from does not follow the previous to', () => {
    const e = run();
    record(e).history.at(-1)!.from = 'observing';
    expect(judge(e).broken).toEqual(['I15']);
  });

  it('breaks when a later snapshot rewrote the history', () => {
    const e = run();
    const early = structuredClone(record(e));
    early.history[1]!.cause = 'something else';
    setTail(early, 'accepted', []);
    e.records.unshift(early);
    expect(judge(e).broken).toEqual(['I15']);
  });

  it('breaks when show printed no record for a submitted operation', () => {
    const e = run({ outcome: 'failed' });
    e.records = [];
    expect(judge(e).broken).toContain('I15');
  });
});
