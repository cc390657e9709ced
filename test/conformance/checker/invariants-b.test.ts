import { describe, expect, it } from 'vitest';
import { backoffPolls } from '../../../src/conformance/checker/index.js';
import type { RequestEntry } from '../../../src/contract/journal.js';
import { iso } from './support/journal-builder.js';
import { run } from './support/fixtures.js';
import { addRequest, dropRequests, judge, ms, record, requests, setTail, status, type Evidence } from './support/mutate.js';

/** I6–I10: for each, evidence that holds it and evidence that breaks it, and nothing else wrongly flagged. */

const cancelPlan = { durationMs: 3000, cancel: { afterMs: 100, wins: true, deadlineMs: 2000 } };

describe('I6 one-cancel', () => {
  it('holds with one cancel, and with a repeat after a lost answer', () => {
    expect(status(judge(run(cancelPlan)), 'I6')).toBe('held');
    const e = run(cancelPlan);
    const c = requests(e, (r) => r.route === 'cancel')[0]!;
    addRequest(e, c, ms(c.at) - 20, { delivery: 'lost' });
    expect(judge(e).broken).toEqual([]);
  });

  it('breaks when the cancel is sent again after a delivered 202', () => {
    const e = run(cancelPlan);
    const c = requests(e, (r) => r.route === 'cancel')[0]!;
    addRequest(e, c, ms(c.at) + 60, { effect: 'cancel_repeated' });
    const v = judge(e);
    expect(v.broken).toEqual(['I6']);
    expect(v.invariants[5]!.failures[0]!.evidence.journal_seqs).toHaveLength(2);
  });

  it('breaks when a cancel is sent without any intent', () => {
    const e = run(cancelPlan);
    e.cancels = [];
    expect(judge(e).broken).toEqual(['I6']);
  });

  it('excuses a repeat by a new worker after the sender was killed before it could record the answer', () => {
    const e = run(cancelPlan);
    const c = requests(e, (r) => r.route === 'cancel')[0]!;
    addRequest(e, c, ms(c.at) + 600, { worker_id: 'worker-2', effect: 'cancel_repeated' });
    e.harness = [
      { at: iso(ms(c.at) + 1), type: 'kill', worker_id: 'worker-1' },
      { at: iso(ms(c.at) + 2), type: 'start', worker_id: 'worker-2' },
    ];
    expect(status(judge(e), 'I6')).toBe('held');
  });
});

describe('I7 retry-after', () => {
  it('holds when every 429 is waited out', () => {
    expect(status(judge(run({ polls429: 2 })), 'I7')).toBe('held');
    expect(status(judge(run({ create: 'fail_503' })), 'I7')).toBe('held');
  });

  it('is not applicable when no answer carried a binding Retry-After (a 200 read’s advice is I8’s)', () => {
    expect(status(judge(run()), 'I7')).toBe('not_applicable');
  });

  it('breaks when a request follows a 429 before Retry-After elapsed', () => {
    const e = run({ polls429: 1 });
    const limited = requests(e, (r) => r.status === 429)[0]!;
    addRequest(e, limited, ms(limited.at) + 300, { status: 200, effect: 'read', code: null, retry_after: 1, job_state: 'running' });
    const v = judge(e);
    expect(v.broken).toEqual(['I7']);
    expect(v.invariants[6]!.failures[0]!.explanation).toMatch(/300 ms after .* Retry-After: 1/);
  });

  it('holds another worker’s request in the window (it could not have seen the 429)', () => {
    const e = run({ polls429: 1 });
    const limited = requests(e, (r) => r.status === 429)[0]!;
    addRequest(e, limited, ms(limited.at) + 300, {
      worker_id: 'worker-2',
      status: 200,
      effect: 'read',
      code: null,
      retry_after: 1,
      job_state: 'running',
    });
    expect(status(judge(e), 'I7')).toBe('held');
  });
});

describe('I8 bounded-polling', () => {
  it('documents the budget formula n(span)', () => {
    const o = { poll_base_ms: 100, poll_cap_ms: 1000 };
    expect([0, 99, 100, 300, 700, 1499, 1500, 2500].map((s) => backoffPolls(s, o))).toEqual([1, 1, 2, 3, 4, 4, 5, 6]);
  });

  it('holds for capped backoff, even over a long never-ending job', () => {
    expect(status(judge(run()), 'I8')).toBe('held');
    expect(status(judge(run({ outcome: 'never', resultDeadlineMs: 10_000 })), 'I8')).toBe('held');
  });

  it('breaks on a hot loop', () => {
    const e = run({ durationMs: 3000 });
    const poll = requests(e, (r) => r.route === 'status')[0]!;
    for (let i = 1; i <= 40; i++) addRequest(e, poll, ms(poll.at) + i * 10);
    const v = judge(e);
    expect(v.broken).toEqual(['I8']);
    expect(v.invariants[7]!.failures[0]!.explanation).toMatch(/polled job job_op_1 4\d times .* the budget is \d+/);
  });
});

/** worker-1 paused at `pausedAt`, its lease expired 500 ms later, worker-2 did everything after, worker-1 resumed 1.5 s after the pause. */
function takenOver(): { e: Evidence; pausedAt: number; resumedAt: number } {
  const e = run({ durationMs: 3000 });
  const pausedAt = ms(requests(e, (r) => r.route === 'status')[0]!.at) + 1;
  const expiredAt = pausedAt + 500;
  const resumedAt = pausedAt + 1500;
  // A paused process sends nothing; after the lease expired, worker-2 does the rest.
  dropRequests(e, (r) => ms(r.at) > pausedAt && ms(r.at) <= expiredAt);
  // Fencing tokens (client-protocol.md): worker-1 held the lease at token 1, worker-2 took it at token 2.
  for (const r of requests(e, () => true)) r.lease_token = 1;
  for (const h of record(e).history) h.lease_token = h.cause === 'submit' ? null : 1;
  for (const r of requests(e, (r) => ms(r.at) > expiredAt)) Object.assign(r, { worker_id: 'worker-2', lease_token: 2 });
  for (const h of record(e).history) if (ms(h.at) > expiredAt) Object.assign(h, { actor: 'worker-2', lease_token: 2 });
  e.harness = [
    { at: iso(pausedAt), type: 'pause', worker_id: 'worker-1' },
    { at: iso(pausedAt + 10), type: 'start', worker_id: 'worker-2' },
    { at: iso(expiredAt), type: 'lease_expired', worker_id: 'worker-1' },
    { at: iso(resumedAt), type: 'resume', worker_id: 'worker-1' },
  ];
  return { e, pausedAt, resumedAt };
}

describe('I9 single-owner', () => {
  it('holds when the stale worker does nothing after the takeover', () => {
    expect(status(judge(takenOver().e), 'I9')).toBe('held');
  });

  it('allows the one request the stale worker had under way', () => {
    const { e, pausedAt } = takenOver();
    const poll = requests(e, (r) => r.route === 'status')[0]!;
    addRequest(e, poll, pausedAt + 5, { worker_id: 'worker-1' });
    expect(judge(e).broken).toEqual([]);
  });

  it('breaks when the stale worker keeps sending after it resumed', () => {
    const { e, resumedAt } = takenOver();
    const poll = requests(e, (r) => r.route === 'status')[0]!;
    addRequest(e, poll, resumedAt + 5, { worker_id: 'worker-1' });
    addRequest(e, poll, resumedAt + 400, { worker_id: 'worker-1' });
    expect(judge(e).broken).toEqual(['I9']);
  });

  it('holds when the stale worker takes the lease back later with a newer token', () => {
    const { e, resumedAt } = takenOver();
    // worker-2's lease lapsed; worker-1 claimed the operation again, fairly, at token 3, and finished it.
    for (const r of requests(e, (r) => ms(r.at) > resumedAt)) Object.assign(r, { worker_id: 'worker-1', lease_token: 3 });
    for (const h of record(e).history) if (ms(h.at) > resumedAt) Object.assign(h, { actor: 'worker-1', lease_token: 3 });
    expect(requests(e, (r) => r.lease_token === 3).length).toBeGreaterThan(0);
    const v = judge(e);
    expect(v.broken).toEqual([]);
    expect(status(v, 'I9')).toBe('held');
  });

  it('breaks when workers send no lease token (a stale worker cannot be told from the owner)', () => {
    const { e } = takenOver();
    for (const r of requests(e, () => true)) r.lease_token = null;
    expect(judge(e).broken).toEqual(['I9']);
  });

  it('breaks when the stale worker writes the record after the takeover', () => {
    const { e, resumedAt } = takenOver();
    const last = record(e).history.at(-1)!;
    Object.assign(last, { actor: 'worker-1', lease_token: 1, at: iso(Math.max(ms(last.at), resumedAt + 10)) });
    const v = judge(e);
    expect(v.broken).toEqual(['I9']);
    expect(v.invariants[8]!.failures[0]!.evidence.history).toEqual([last]);
  });
});

/** The fields of a find by the operation's key (`GET /v1/jobs?idempotency_key=…`) answered 200. */
function findByKey(effect: RequestEntry['effect'], jobId: string | null): Partial<RequestEntry> {
  return {
    method: 'GET',
    path: '/v1/jobs?idempotency_key=idem_op_1',
    route: 'list',
    effect,
    job_id: jobId,
    status: 200,
    job_state: null,
    idempotency_key: null,
    client_ref: null,
    fingerprint: null,
  };
}

/** The key's replay answered a job id it never created; the client checked the list, stopped in needs_attention. */
function foreignReplay(): Evidence {
  const e = run({ create: 'lost_then_replay' });
  const replay = requests(e, (r) => r.effect === 'replayed')[0]!;
  Object.assign(replay, { effect: 'foreign_replay', job_id: 'job_foreign' });
  const t = ms(replay.at);
  dropRequests(e, (r) => ms(r.at) > t);
  addRequest(e, replay, t + 5, findByKey('read', null));
  const r = record(e);
  setTail(r, 'create_unknown', [['needs_attention', 20]]);
  r.history.at(-1)!.cause = 'replay answered job_foreign but the key created job_op_1';
  r.remote_job_id = null;
  r.result = null;
  return e;
}

describe('I10 contract-violation', () => {
  it('holds when the client stops in needs_attention naming both ids', () => {
    const v = judge(foreignReplay());
    expect(v.broken).toEqual([]);
    expect(status(v, 'I10')).toBe('held');
  });

  it('breaks when a find listed a foreign job under the key and the client adopted one anyway (the lookup path)', () => {
    const e = run({ create: 'lost_then_replay' });
    const replay = requests(e, (r) => r.effect === 'replayed')[0]!;
    addRequest(e, replay, ms(replay.at) - 5, findByKey('foreign_replay', 'job_foreign'));
    const v = judge(e);
    expect(v.broken).toEqual(['I10']);
    expect(v.invariants[9]!.failures[0]!.explanation).toMatch(/the find .* answered job job_foreign/);
  });

  it("holds on the lookup path too: a find listed a foreign job, the client stopped in needs_attention, and I3 does not count the key's succeeded job as lost", () => {
    const e = run({ create: 'lost_then_replay' });
    const replay = requests(e, (r) => r.effect === 'replayed')[0]!;
    const t = ms(replay.at);
    dropRequests(e, (r) => ms(r.at) >= t);
    addRequest(e, replay, t, findByKey('foreign_replay', 'job_foreign'));
    const r = record(e);
    setTail(r, 'create_unknown', [['needs_attention', 20]]);
    r.history.at(-1)!.cause = 'provider shows several jobs for one key: job_op_1, job_foreign';
    r.remote_job_id = null;
    r.result = null;
    const v = judge(e);
    expect(v.broken).toEqual([]);
    expect(status(v, 'I10')).toBe('held');
  });

  it('breaks when the history does not name both ids', () => {
    const e = foreignReplay();
    record(e).history.at(-1)!.cause = 'contract violation';
    expect(judge(e).broken).toEqual(['I10']);
  });

  it('breaks when the client calls again after needs_attention', () => {
    const e = foreignReplay();
    const list = requests(e, (r) => r.route === 'list')[0]!;
    addRequest(e, list, ms(record(e).history.at(-1)!.at) + 500);
    expect(judge(e).broken).toEqual(['I10']);
  });

  it("asks a client never shown the key's own job only not to take the replay's job for its own", () => {
    const e = foreignReplay();
    // The find that would have shown the key's job came back while its worker was paused (its timeout won).
    const find = requests(e, (r) => r.route === 'list')[0]!;
    Object.assign(find, { worker_id: 'worker-1', listed: [{ job_id: 'job_op_1', state: 'queued' }] });
    e.harness = [
      { at: iso(ms(find.at) - 1), type: 'pause', worker_id: 'worker-1' },
      { at: iso(ms(find.at) + 300), type: 'resume', worker_id: 'worker-1' },
    ];
    for (const c of requests(e, (r) => r.route === 'create' && r.effect === 'created')) c.delivery = 'lost';
    const r = record(e);
    setTail(r, 'create_unknown', [['result_timed_out', 400]]);
    r.history.at(-1)!.cause = 'replayed create answered job job_foreign, the lookup to check it did not answer';
    expect(status(judge(e), 'I10')).not.toBe('broken');
    // Taking it for its own is the mistake a check exists to prevent, shown the key's job or not.
    r.remote_job_id = 'job_foreign';
    expect(status(judge(e), 'I10')).toBe('broken');
  });

  it('breaks when the client accepts the foreign id', () => {
    const e = foreignReplay();
    setTail(record(e), 'create_unknown', [
      ['accepted', 20],
      ['observing', 100],
    ]);
    record(e).remote_job_id = 'job_foreign';
    expect(judge(e).broken).toEqual(['I10']);
  });
});

/**
 * Issue 23's case, as the provider now journals it: the create answer lost, the replay served a foreign id (the
 * entry's job_id is the id served), and the find by the key listed two jobs under it (the key's own and a second
 * foreign one). The client was told three ids.
 */
function toldThree(): Evidence {
  const e = foreignReplay();
  const find = requests(e, (r) => r.route === 'list')[0]!;
  Object.assign(find, {
    effect: 'foreign_replay',
    job_id: 'job_foreign_2',
    idempotency_key: 'idem_op_1',
    listed: [
      { job_id: 'job_op_1', state: 'queued' },
      { job_id: 'job_foreign_2', state: 'queued' },
    ],
  });
  record(e).history.at(-1)!.cause = 'replay answered job_foreign; provider shows several jobs for one key: job_op_1, job_foreign_2';
  return e;
}

describe('I10 asks for the ids the client was told', () => {
  it('certifies a client that keeps every id it was told (replay, and both jobs the find listed) and stops', () => {
    const v = judge(toldThree());
    expect(v.broken).toEqual([]);
    expect(status(v, 'I10')).toBe('held');
  });

  it('catches a client that adopts the foreign id the replay served, naming that id', () => {
    const e = toldThree();
    setTail(record(e), 'create_unknown', [
      ['accepted', 20],
      ['observing', 100],
    ]);
    record(e).remote_job_id = 'job_foreign';
    const v = judge(e);
    expect(v.broken).toEqual(['I10']);
    expect(v.invariants[9]!.failures[0]!.explanation).toMatch(/answered job job_foreign, which its key never created \(job_op_1\)/);
  });

  it('names each id the history leaves out once, among the ids told (not "job_X and job_X")', () => {
    const e = toldThree();
    record(e).history.at(-1)!.cause = 'replay answered job_foreign but the key created job_op_1';
    const v = judge(e);
    expect(v.broken).toEqual(['I10']);
    const why = v.invariants[9]!.failures[0]!.explanation;
    expect(why).toContain('does not name job_foreign_2 (told: job_foreign, job_op_1, job_foreign_2)');
  });

  it('does not ask for an id a held find answered only after the client stopped', () => {
    const e = toldThree();
    const find = requests(e, (r) => r.route === 'list')[0]!;
    Object.assign(find, { at: iso(ms(record(e).history.at(-1)!.at) + 200) });
    record(e).history.at(-1)!.cause = 'replay answered job_foreign';
    expect(status(judge(e), 'I10')).not.toBe('broken');
  });

  it('does not ask for an id told to a worker killed before it sent anything else; asks once it did send more', () => {
    const e = toldThree();
    const find = requests(e, (r) => r.route === 'list')[0]!;
    Object.assign(find, { worker_id: 'worker-2' });
    record(e).history.at(-1)!.cause = 'replay answered job_foreign but the key created job_op_1';
    e.harness = [{ at: iso(ms(find.at) + 1), type: 'kill', worker_id: 'worker-2' }];
    expect(status(judge(e), 'I10')).toBe('held');
    // It read the answer (it sent another request before its kill): what it learnt had to be written before that.
    addRequest(e, find, ms(find.at), { worker_id: 'worker-2', route: 'status', effect: 'read' });
    expect(status(judge(e), 'I10')).toBe('broken');
  });
});

describe('I7 and delayed requests', () => {
  it('does not count a request held by a delay fault (journaled when answered, sent before the 429 came back)', () => {
    const e = run({ polls429: 1 });
    const limited = requests(e, (r) => r.status === 429)[0]!;
    addRequest(e, limited, ms(limited.at) + 30, {
      received_at: new Date(ms(limited.at) - 500).toISOString(),
      status: 200,
      effect: 'read',
      code: null,
      job_state: 'running',
      delivery: 'delayed',
      fault: { rule_id: 'slow', type: 'delay' },
    });
    expect(status(judge(e), 'I7')).toBe('held');
  });
});
