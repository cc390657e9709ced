import { describe, expect, it } from 'vitest';
import { iso } from './support/journal-builder.js';
import { run } from './support/fixtures.js';
import { addRequest, dropRequests, judge, record, requests, setTail, status, ms } from './support/mutate.js';

/** I1–I5: for each, evidence that holds it and evidence that breaks it, and nothing else wrongly flagged. */

describe('I1 at-most-once', () => {
  it('holds when a lost create is replayed under the same key', () => {
    const v = judge(run({ create: 'lost_then_replay' }));
    expect(v.broken).toEqual([]);
    expect(status(v, 'I1')).toBe('held');
  });

  it('breaks when the retry created a second job', () => {
    const e = run({ create: 'lost_then_replay' });
    const replay = requests(e, (r) => r.effect === 'replayed')[0]!;
    Object.assign(replay, { effect: 'created', job_id: 'job_op_1_again' });
    const v = judge(e);
    expect(v.broken).toEqual(['I1']);
    expect(v.invariants[0]!.failures[0]!.evidence.journal_seqs).toHaveLength(2);
  });
});

describe('I2 key-discipline', () => {
  it('holds with one key and one body over every attempt', () => {
    expect(status(judge(run({ create: 'error_after_commit' })), 'I2')).toBe('held');
  });

  it('breaks when a retry carries another key (and so creates a second job)', () => {
    const e = run({ create: 'error_after_commit' });
    Object.assign(requests(e, (r) => r.effect === 'replayed')[0]!, { idempotency_key: 'idem_fresh', effect: 'created', job_id: 'job_2' });
    expect(judge(e).broken).toEqual(['I1', 'I2']);
  });

  it('breaks when the body changes under the same key (422 idempotency_key_reused)', () => {
    const e = run({ create: 'error_after_commit' });
    Object.assign(requests(e, (r) => r.effect === 'replayed')[0]!, {
      fingerprint: 'sha256:other',
      effect: 'none',
      status: 422,
      code: 'idempotency_key_reused',
      job_id: null,
    });
    expect(judge(e).broken).toEqual(['I2']);
  });

  it('breaks when a changed request under the same operation id was accepted', () => {
    const e = run();
    const s = e.submissions[0]!;
    e.submissions.push({ ...s, request: { ...s.request, input: { account: 'changed' } }, exit_code: 0 });
    expect(judge(e).broken).toEqual(['I2']);
    const refused = run();
    refused.submissions.push({ ...s, request: { ...s.request, input: { account: 'changed' } }, exit_code: 3 });
    expect(judge(refused).broken).toEqual([]);
  });

  it('breaks when operations with different requests share a key', () => {
    const e = run({}, [{}]);
    const key = record(e, 'op_1').idempotency_key;
    record(e, 'op_2').idempotency_key = key;
    for (const r of requests(e, (r) => r.client_ref === 'op_2')) r.idempotency_key = key;
    expect(judge(e).broken).toContain('I2');
  });
});

describe('I3 no-lost-result', () => {
  it('holds when the succeeded job ends succeeded with its digest', () => {
    expect(status(judge(run({ itemsFailed: 1 })), 'I3')).toBe('held');
  });

  it('breaks when a job that succeeded in time ends result_timed_out', () => {
    const e = run();
    dropRequests(e, (r) => r.route === 'results');
    setTail(record(e), 'observing', [['result_timed_out', 7000]]);
    record(e).result = null;
    const v = judge(e);
    expect(v.broken).toEqual(['I3']);
    expect(v.invariants[2]!.failures[0]!.explanation).toMatch(/job job_op_1 succeeded .* but the operation is result_timed_out/);
  });

  it('breaks when the recorded digest is not the provider’s', () => {
    const e = run();
    record(e).result!.sha256 = 'deadbeef';
    expect(judge(e).broken).toEqual(['I3']);
  });

  it('does not blame a client whose one-shot results answer was lost on the way', () => {
    const e = run();
    Object.assign(requests(e, (r) => r.route === 'results')[0]!, { delivery: 'lost' });
    e.jobs![0]!.behavior = { ...e.jobs![0]!.behavior, one_shot_results: true };
    setTail(record(e), 'result_collecting', [['result_unavailable', 10]]);
    record(e).result = null;
    expect(judge(e).broken).toEqual([]);
  });

  /** The one results fetch answered `status` (delivered), and the client ended result_unavailable `after` ms later. */
  function unavailableAfter(status: number, after: number | 'deadline') {
    const e = run();
    Object.assign(requests(e, (r) => r.route === 'results')[0]!, {
      status,
      effect: 'none',
      code: status === 410 ? 'results_gone' : 'internal_error',
    });
    const deadline = ms(e.submissions![0]!.submitted_at) + e.submissions![0]!.request.result_deadline_ms;
    setTail(record(e), 'result_collecting', [['result_unavailable', after === 'deadline' ? deadline + 20 : after]]);
    record(e).result = null;
    return judge(e);
  }

  it('excuses result_unavailable when the provider said the results are gone (410)', () => {
    expect(unavailableAfter(410, 10).broken).toEqual([]);
  });

  it('breaks when the client gives up after one 500 on its results fetch, long before its result deadline', () => {
    const v = unavailableAfter(500, 10);
    expect(v.broken).toEqual(['I3']);
    expect(v.invariants[2]!.failures[0]!.explanation).toMatch(/but the operation is result_unavailable/);
  });

  it('excuses result_unavailable after failed fetches when the client kept trying until its result deadline', () => {
    expect(status(unavailableAfter(500, 'deadline'), 'I3')).not.toBe('broken');
  });

  it('counts a fetch refused before it executed (429) by the job its path names, not by a job_id none gave it', () => {
    const e = run();
    const fetch = requests(e, (r) => r.route === 'results')[0]!;
    Object.assign(fetch, { status: 429, effect: 'none', code: 'rate_limited', job_id: null });
    expect(fetch.path).toMatch(/^\/v1\/jobs\/[^/]+\/results$/);
    const deadline = ms(e.submissions![0]!.submitted_at) + e.submissions![0]!.request.result_deadline_ms;
    setTail(record(e), 'result_collecting', [['result_unavailable', deadline + 20]]);
    record(e).result = null;
    expect(status(judge(e), 'I3')).not.toBe('broken');
  });

  it('breaks when the client waits out its deadline without ever asking for the results', () => {
    const e = run();
    dropRequests(e, (r) => r.route === 'results');
    const deadline = ms(e.submissions![0]!.submitted_at) + e.submissions![0]!.request.result_deadline_ms;
    setTail(record(e), 'result_collecting', [['result_unavailable', deadline + 20]]);
    record(e).result = null;
    expect(judge(e).broken).toContain('I3');
  });
});

describe('I4 reads how a lost create answer was lost, not which fault lost it', () => {
  /** The create answer lost (`lostBy`), the provider down from 1.5 s after it, result_timed_out at 2.5 s, never reconciled. */
  function givenUp(lostBy: 'reset' | 'hang') {
    const e = run({ create: 'lost_then_list' });
    const create = requests(e, (r) => r.route === 'create')[0]!;
    const tc = ms(create.at);
    Object.assign(create, { lost_by: lostBy });
    dropRequests(e, (r) => r.seq > create.seq);
    e.submissions![0]!.request.create_deadline_ms = 2000;
    setTail(record(e), 'create_unknown', [['result_timed_out', tc + 2500]]);
    Object.assign(record(e), { remote_job_id: null, result: null });
    e.harness = [
      { at: e.submissions![0]!.submitted_at, type: 'start', worker_id: 'worker-1' },
      { at: iso(tc + 1500), type: 'provider_restart' },
    ];
    return judge(e);
  }

  it('a reset is known at once: the client had the grace to find its job before the provider went down', () => {
    expect(status(givenUp('reset'), 'I4')).toBe('broken');
  });

  it('a hang is known only at the create deadline, when the provider was already down: excused', () => {
    expect(status(givenUp('hang'), 'I4')).not.toBe('broken');
  });
});

describe('I4 when every lookup answer was lost', () => {
  /** A create answer lost by a hang, its one lookup at `listAt` (ms after the create) lost too, result_timed_out at 1.5 s. */
  function lookupsLost(listAt: number, executedAt = listAt) {
    const e = run({ create: 'lost_then_list' });
    const create = requests(e, (r) => r.route === 'create')[0]!;
    const tc = ms(create.at);
    Object.assign(create, { lost_by: 'hang' });
    const list = requests(e, (r) => r.route === 'list')[0]!;
    Object.assign(list, { at: iso(tc + executedAt), received_at: iso(tc + listAt), delivery: 'lost', lost_by: 'reset' });
    dropRequests(e, (r) => r.seq > list.seq);
    e.submissions![0]!.request.create_deadline_ms = 100;
    setTail(record(e), 'create_unknown', [['result_timed_out', tc + 1500]]);
    Object.assign(record(e), { remote_job_id: null, result: null });
    return judge(e);
  }

  it('excuses a client still looking its job up when it gave up: the provider would not say', () => {
    expect(status(lookupsLost(1000), 'I4')).not.toBe('broken');
  });

  it('counts a lookup the provider held past the give-up from when it was sent', () => {
    expect(status(lookupsLost(1000, 1600), 'I4')).not.toBe('broken');
  });

  it('not one that asked once and then sat idle past the grace', () => {
    expect(status(lookupsLost(50), 'I4')).toBe('broken');
  });
});

describe('I4 truthful-final-state', () => {
  it('holds when every final state rests on a delivered answer', () => {
    expect(status(judge(run({ outcome: 'failed' })), 'I4')).toBe('held');
  });

  it('breaks when a failed job is reported cancelled', () => {
    const e = run({ outcome: 'failed' });
    setTail(record(e), 'observing', [['cancelled', 2000]]);
    expect(judge(e).broken).toEqual(['I4']);
  });

  it('breaks when the client goes final while its job is unknown to it (lost create, never reconciled)', () => {
    const e = run({ create: 'lost_then_list', outcome: 'failed' });
    dropRequests(e, (r) => r.route !== 'create');
    setTail(record(e), 'create_unknown', [['failed', 100]]);
    record(e).remote_job_id = null;
    const v = judge(e);
    expect(v.broken).toEqual(['I4']);
    expect(v.invariants[3]!.failures[0]!.explanation).toMatch(/unknown to it/);
  });

  it('breaks when succeeded comes without a delivered results fetch', () => {
    const e = run();
    Object.assign(requests(e, (r) => r.route === 'results')[0]!, { delivery: 'lost' });
    expect(judge(e).broken).toEqual(['I4']);
  });
});

describe('I5 honest-cancel', () => {
  it('holds when a winning cancel ends cancelled, and a lost race ends succeeded', () => {
    expect(status(judge(run({ durationMs: 3000, cancel: { afterMs: 100, wins: true, deadlineMs: 2000 } })), 'I5')).toBe('held');
    const lost = judge(run({ durationMs: 1000, cancel: { afterMs: 300, wins: false, deadlineMs: 3000 } }));
    expect(lost.broken).toEqual([]);
    expect(record(run({ durationMs: 1000, cancel: { afterMs: 300, wins: false, deadlineMs: 3000 } })).state).toBe('succeeded');
  });

  it('holds when an ignored cancel ends cancellation_unconfirmed at the deadline', () => {
    const e = run({ outcome: 'never', cancel: { afterMs: 100, wins: false, deadlineMs: 1500 } });
    expect(record(e).state).toBe('cancellation_unconfirmed');
    expect(judge(e).broken).toEqual([]);
  });

  it('breaks when a lost race is reported cancelled (I4 too: the provider never cancelled it)', () => {
    const e = run({ durationMs: 1000, cancel: { afterMs: 300, wins: false, deadlineMs: 3000 } });
    setTail(record(e), 'cancelling', [['cancelled', 900]]);
    expect(judge(e).broken).toEqual(['I4', 'I5']);
  });

  it('breaks when the client gives up before the cancel deadline', () => {
    const e = run({ outcome: 'never', cancel: { afterMs: 100, wins: false, deadlineMs: 3000 } });
    const cancellingAt = ms(record(e).history.find((h) => h.to === 'cancelling')!.at);
    dropRequests(e, (r) => r.route === 'status' && ms(r.at) > cancellingAt + 500);
    setTail(record(e), 'cancelling', [['cancellation_unconfirmed', 500]]);
    expect(judge(e).broken).toEqual(['I5']);
  });

  it('breaks when told the job ended, the client still says cancellation_unconfirmed', () => {
    const e = run({ durationMs: 3000, cancel: { afterMs: 100, wins: true, deadlineMs: 2000 } });
    const told = requests(e, (r) => r.job_state === 'cancelled')[0]!;
    dropRequests(e, (r) => r.route === 'status' && r.seq > told.seq);
    setTail(record(e), 'cancelling', [['cancellation_unconfirmed', ms(told.at) + 2000]]);
    expect(judge(e).broken).toContain('I5');
  });
});

describe('I5 and held answers', () => {
  // A status read held by a `delay` fault, answered at the very moment the client's own timeout gave up on it: the
  // client may never have read it (found by 1000 random schedules with webhooks off, on the virtual clock).
  function heldAnswer(finalAfterMs: number) {
    const e = run({ durationMs: 3000, cancel: { afterMs: 100, wins: true, deadlineMs: 2000 } });
    const told = requests(e, (r) => r.job_state === 'cancelled')[0]!;
    told.delivery = 'delayed';
    dropRequests(e, (r) => r.route === 'status' && r.seq > told.seq);
    setTail(record(e), 'cancelling', [['cancellation_unconfirmed', ms(told.at) + finalAfterMs]]);
    return e;
  }

  it('does not count a held answer that came as the client gave up as having told it', () => {
    const v = judge(heldAnswer(0));
    // Whatever else is said about this run, it is not "told the job ended".
    expect(v.invariants[4]!.failures.map((f) => f.explanation).join(' ')).not.toMatch(/had told it/);
  });

  it('breaks when the held answer came clearly before the client gave up', () => {
    expect(judge(heldAnswer(2000)).broken).toContain('I5');
  });
});

describe('addRequest keeps seq in time order', () => {
  it('renumbers', () => {
    const e = run();
    const first = requests(e)[0]!;
    addRequest(e, first, ms(first.at) - 1, { path: '/earlier' });
    expect(requests(e)[0]!.path).toBe('/earlier');
    expect(e.journal.map((x) => x.seq)).toEqual(e.journal.map((_, i) => i + 1));
  });
});
