import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../../src/lib/canonical-json.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import {
  journalEntryFor,
  keyInFlight,
  newKey,
  problemOf,
  startProviderServer,
  waitFor,
  type ProviderServer,
} from '../../helpers/provider-server.js';
import { apply, awaitingTask, createTask, newRef, objectVersion, putObject, readTask, review, taskBody } from './helpers.js';

let ps: ProviderServer;
beforeAll(async () => {
  ps = await startProviderServer();
});
afterAll(async () => ps.stop());
beforeEach(async () => {
  await ps.control('PUT', '/_control/task-behavior', { body: { draft_ms: 0 } });
  await ps.control('DELETE', '/_control/faults');
});

describe('GET /v1/objects/{ref}', () => {
  it('shows the object of the own tenant; 404 object_not_found for unknown and foreign ones', async () => {
    const ref = newRef();
    await putObject(ps, ref, { a: 1 });
    expect(await putObject(ps, ref, { a: 2 })).toBe(2);
    const a = await ps.call('GET', `/v1/objects/${ref}`);
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ object_ref: ref, version: 2, data: { a: 2 }, updated_at: expect.stringMatching(/^\d{4}-.*\.\d{3}Z$/) });
    problemOf(await ps.call('GET', `/v1/objects/${ref}`, { token: 'other-tenant-token' }), 404, 'object_not_found');
    problemOf(await ps.call('GET', '/v1/objects/nope-nope'), 404, 'object_not_found');
    problemOf(await ps.call('GET', `/v1/objects/${ref}`, { token: null }), 401, 'unauthorized');
  });
});

describe('POST /v1/tasks', () => {
  it('202 with task_id, state queued, status_url and Location; journalled as task_create/created', async () => {
    const ref = newRef();
    const v = await putObject(ps, ref);
    const a = await ps.call('POST', '/v1/tasks', {
      headers: { 'idempotency-key': newKey(), 'x-trace-id': 'tr-1' },
      body: taskBody(ref, v),
    });
    expect(a.status).toBe(202);
    expect(a.json).toMatchObject({ task_id: expect.stringMatching(/^task_/), state: 'queued', status_url: `/v1/tasks/${a.json.task_id}` });
    expect(a.headers.get('location')).toBe(`/v1/tasks/${a.json.task_id}`);
    expect(journalEntryFor(ps.provider, a)).toMatchObject({
      route: 'task_create',
      effect: 'created',
      task_id: a.json.task_id,
      task_state: 'queued',
      trace_id: 'tr-1',
      tenant: 'acme',
      subject: 'agent-1',
    });
  });

  it('refuses before any work: 400 without key, 400 bad body, 403 forbidden_role, 404 object_not_found, 409 stale_object_version', async () => {
    const ref = newRef();
    const v = await putObject(ps, ref);
    await putObject(ps, ref);
    problemOf(await ps.call('POST', '/v1/tasks', { body: taskBody(ref, v + 1) }), 400, 'idempotency_key_missing');
    const bad = problemOf(
      await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': newKey() }, body: { type: 'delete_all', object_ref: ref } }),
      400,
      'invalid_request',
    );
    expect(bad.errors.length).toBeGreaterThan(0);
    problemOf(await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': newKey() }, body: '{"type":' }), 400, 'invalid_json');
    problemOf(
      await ps.call('POST', '/v1/tasks', { token: 'reviewer-token', headers: { 'idempotency-key': newKey() }, body: taskBody(ref, v + 1) }),
      403,
      'forbidden_role',
    );
    problemOf(
      await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': newKey() }, body: taskBody('no-such-object', 1) }),
      404,
      'object_not_found',
    );
    problemOf(
      await ps.call('POST', '/v1/tasks', {
        token: 'other-tenant-token',
        headers: { 'idempotency-key': newKey() },
        body: taskBody(ref, v + 1),
      }),
      404,
      'object_not_found',
    );
    const stale = problemOf(
      await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': newKey() }, body: taskBody(ref, v) }),
      409,
      'stale_object_version',
    );
    expect(stale).toMatchObject({ object_ref: ref, current_version: v + 1 });
    // Nothing was created by any of them.
    const all = (await ps.control('GET', '/_control/tasks')).json.data.filter((t: any) => t.object_ref === ref);
    expect(all).toEqual([]);
  });

  it('a refused request leaves its key unused: the same key works once the version is right', async () => {
    const ref = newRef();
    const v = await putObject(ps, ref);
    const key = newKey();
    problemOf(
      await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': key }, body: taskBody(ref, v + 5) }),
      409,
      'stale_object_version',
    );
    expect((await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': key }, body: taskBody(ref, v) })).status).toBe(202);
  });

  it('idempotency: replay with Idempotent-Replayed, 422 on a changed body, per-subject scope', async () => {
    const ref = newRef();
    const v = await putObject(ps, ref);
    const key = newKey();
    const a = await createTask(ps, ref, v, { key });
    const b = await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': key }, body: taskBody(ref, v) });
    expect(b.status).toBe(202);
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.headers.get('location')).toBe(a.headers.get('location'));
    expect(journalEntryFor(ps.provider, b)).toMatchObject({ effect: 'replayed', task_id: a.json.task_id });
    problemOf(
      await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': key }, body: taskBody(ref, v, { other: 1 }) }),
      422,
      'idempotency_key_reused',
    );
    const c = await ps.call('POST', '/v1/tasks', { token: 'dev-token-2', headers: { 'idempotency-key': key }, body: taskBody(ref, v) });
    expect(c.status).toBe(202);
    expect(c.json.task_id).not.toBe(a.json.task_id);
  });

  it('a duplicate while the first create is in flight (delay fault) gets 409 idempotency_request_in_progress', async () => {
    // A virtual clock holds the first request until the test lets it go: the duplicate surely meets the key in flight.
    const clock = new VirtualClock();
    const local = await startProviderServer({
      clock,
      faults: { rules: [{ on: 'task_create', nth: 1, fault: { type: 'delay', ms: 400 } }] },
    });
    try {
      const ref = newRef();
      const v = await putObject(local, ref);
      const k2 = newKey();
      const first = local.call('POST', '/v1/tasks', { headers: { 'idempotency-key': k2 }, body: taskBody(ref, v) });
      await waitFor(() => keyInFlight(local.provider, 'POST /v1/tasks', k2));
      const dup = await local.call('POST', '/v1/tasks', { headers: { 'idempotency-key': k2 }, body: taskBody(ref, v) });
      problemOf(dup, 409, 'idempotency_request_in_progress');
      expect(dup.headers.get('retry-after')).toBeTruthy();
      await clock.advance(400);
      const done = await first;
      expect(done.status).toBe(202);
      expect(journalEntryFor(local.provider, done)).toMatchObject({ effect: 'created', delivery: 'delayed' });
    } finally {
      await local.stop();
    }
  });

  it('a lost create answer (lose_response on task_create): created once, the retry replays it', async () => {
    const ref = newRef();
    const v = await putObject(ps, ref);
    const key = newKey();
    await ps.control('PUT', '/_control/faults', { body: { rules: [{ on: 'task_create', nth: 1, fault: { type: 'lose_response' } }] } });
    await expect(ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': key }, body: taskBody(ref, v) })).rejects.toThrow();
    const b = await ps.call('POST', '/v1/tasks', { headers: { 'idempotency-key': key }, body: taskBody(ref, v) });
    expect(b.status).toBe(202);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const created = ps.provider.journal
      .all()
      .filter((e) => e.type === 'request' && e.route === 'task_create' && e.idempotency_key === key && e.effect === 'created');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ delivery: 'lost', task_id: b.json.task_id });
  });
});

describe('GET /v1/tasks/{id}', () => {
  it('moves queued → running → awaiting_review on the provider clock, with Retry-After while drafting', async () => {
    await ps.control('PUT', '/_control/task-behavior', { body: { draft_ms: 300 } });
    const ref = newRef();
    const v = await putObject(ps, ref, { amount: 5 });
    const id = (await createTask(ps, ref, v, { input: { changes: { amount: 6 } } })).json.task_id;
    const first = await readTask(ps, id);
    expect(first.json.state).toBe('queued');
    expect(first.headers.get('retry-after')).toBe('1');
    await waitFor(async () => (await readTask(ps, id)).json.state === 'running', 2000, 10);
    const t = await waitFor(
      async () => {
        const r = await readTask(ps, id);
        return r.json.state === 'awaiting_review' ? r : null;
      },
      3000,
      20,
    );
    expect(t.headers.get('retry-after')).toBeNull();
    expect(t.json).toMatchObject({
      task_id: id,
      type: 'propose_update',
      object_ref: ref,
      object_version: v,
      initiator: 'agent-1',
      review: null,
      application: null,
      error: null,
    });
    const { draft, proposal } = t.json.result;
    expect(draft.sources).toEqual([{ ref, version: v, excerpt: '{"amount":5}' }]);
    expect(draft.confidence).toBe(0.8);
    expect(proposal).toMatchObject({
      proposal_version: 1,
      object_ref: ref,
      base_version: v,
      change: { type: 'merge_patch', patch: { amount: 6 } },
    });
    const { sha256, ...rest } = proposal;
    expect(sha256).toBe(sha256Hex(canonicalJson(rest)));
  });

  it('outcome failed: the task ends failed with an error (distinct from rejected)', async () => {
    await ps.control('PUT', '/_control/task-behavior', { body: { draft_ms: 0, outcome: 'failed' } });
    const ref = newRef();
    const id = (await createTask(ps, ref, await putObject(ps, ref))).json.task_id;
    const t = (await readTask(ps, id)).json;
    expect(t).toMatchObject({ state: 'failed', result: null, error: { code: 'draft_failed' } });
    problemOf(await review(ps, id, 'approve', 1), 409, 'invalid_state');
  });

  it('another tenant: 404 task_not_found on read, audit, review and apply', async () => {
    const { id } = await awaitingTask(ps);
    problemOf(await readTask(ps, id, 'other-tenant-token'), 404, 'task_not_found');
    problemOf(await ps.call('GET', `/v1/tasks/${id}/audit`, { token: 'other-tenant-token' }), 404, 'task_not_found');
    problemOf(await review(ps, id, 'approve', 1, 'other-tenant-token'), 404, 'task_not_found');
    problemOf(await apply(ps, id, newKey(), 'other-tenant-token'), 404, 'task_not_found');
    problemOf(await readTask(ps, 'task_nope'), 404, 'task_not_found');
  });

  it('a fault plan on task_read applies (rate_limit → 429)', async () => {
    const { id } = await awaitingTask(ps);
    await ps.control('PUT', '/_control/faults', {
      body: { rules: [{ on: 'task_read', nth: 1, fault: { type: 'rate_limit', retry_after: 2 } }] },
    });
    const a = await readTask(ps, id);
    problemOf(a, 429, 'rate_limited');
    expect(journalEntryFor(ps.provider, a)).toMatchObject({ route: 'task_read', fault: { type: 'rate_limit' } });
    expect((await readTask(ps, id)).status).toBe(200);
  });
});

describe('POST /v1/tasks/{id}/review', () => {
  it('approve binds the approval to the proposal version and SHA-256, with the reviewer; journalled as reviewed', async () => {
    const { id, task } = await awaitingTask(ps);
    const a = await review(ps, id, 'approve', 1);
    expect(a.status).toBe(200);
    expect(a.json.state).toBe('approved');
    expect(a.json.review).toEqual({
      decision: 'approved',
      reviewer: 'reviewer-1',
      proposal_version: 1,
      proposal_sha256: task.result.proposal.sha256,
      at: expect.any(String),
    });
    expect(journalEntryFor(ps.provider, a)).toMatchObject({ route: 'review', effect: 'reviewed', task_state: 'approved' });
  });

  it('403 forbidden_role for a submitter; 403 self_review_forbidden for the initiator with the reviewer role', async () => {
    const { id } = await awaitingTask(ps);
    problemOf(await review(ps, id, 'approve', 1, 'dev-token-2'), 403, 'forbidden_role');
    problemOf(await review(ps, id, 'approve', 1, 'dev-token'), 403, 'forbidden_role');
    await ps.control('PUT', '/_control/principals', {
      body: { tokens: { 'dev-token': { tenant: 'acme', subject: 'agent-1', roles: ['submitter', 'reviewer'] } } },
    });
    try {
      problemOf(await review(ps, id, 'approve', 1, 'dev-token'), 403, 'self_review_forbidden');
      problemOf(await review(ps, id, 'reject', 1, 'dev-token'), 403, 'self_review_forbidden');
    } finally {
      await ps.control('PUT', '/_control/principals', {
        body: { tokens: { 'dev-token': { tenant: 'acme', subject: 'agent-1', roles: ['submitter'] } } },
      });
    }
    expect((await readTask(ps, id)).json.state).toBe('awaiting_review');
  });

  it('409 stale_proposal after a redraft; 409 invalid_state when not awaiting review (or revoke when not approved)', async () => {
    const { id, ref } = await awaitingTask(ps);
    problemOf(await review(ps, id, 'revoke', 1), 409, 'invalid_state');
    await putObject(ps, ref, { amount: 2 });
    const t = (await readTask(ps, id)).json;
    expect(t.result.proposal).toMatchObject({ proposal_version: 2, base_version: 2 });
    const stale = problemOf(await review(ps, id, 'approve', 1), 409, 'stale_proposal');
    expect(stale.task.result.proposal.proposal_version).toBe(2);
    expect((await review(ps, id, 'approve', 2)).status).toBe(200);
    problemOf(await review(ps, id, 'approve', 2), 409, 'invalid_state');
    problemOf(await review(ps, id, 'reject', 2), 409, 'invalid_state');
    problemOf(
      await ps.call('POST', `/v1/tasks/${id}/review`, { token: 'reviewer-token', body: { decision: 'maybe', proposal_version: 2 } }),
      400,
      'invalid_request',
    );
  });

  it('revoke returns the task to awaiting_review; reject is final', async () => {
    const { id } = await awaitingTask(ps);
    await review(ps, id, 'approve', 1);
    const r = await review(ps, id, 'revoke', 1);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ state: 'awaiting_review', review: { decision: 'revoked', reviewer: 'reviewer-1' } });
    problemOf(await apply(ps, id), 409, 'approval_required');
    const j = await review(ps, id, 'reject', 1);
    expect(j.json).toMatchObject({ state: 'rejected', review: { decision: 'rejected' } });
    problemOf(await review(ps, id, 'approve', 1), 409, 'invalid_state');
    problemOf(await apply(ps, id), 409, 'invalid_state');
  });
});

describe('POST /v1/tasks/{id}/apply', () => {
  it('applies once: 200 applied; same key replays; another key 409 already_applied with the record; version rose once', async () => {
    const { id, ref, version } = await awaitingTask(ps, { amount: 1, note: 'x' });
    await review(ps, id, 'approve', 1);
    const key = newKey('apply');
    const a = await apply(ps, id, key);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      state: 'applied',
      application: { new_version: version + 1, idempotency_key: key, applied_at: expect.any(String) },
    });
    expect(journalEntryFor(ps.provider, a)).toMatchObject({
      route: 'apply',
      effect: 'applied',
      idempotency_key: key,
      task_state: 'applied',
    });
    const b = await apply(ps, id, key);
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    const c = problemOf(await apply(ps, id, newKey()), 409, 'already_applied');
    expect(c.application).toEqual(a.json.application);
    const d = problemOf(await apply(ps, id, newKey(), 'dev-token-2'), 409, 'already_applied');
    expect(d.application).toEqual(a.json.application);
    const o = (await ps.call('GET', `/v1/objects/${ref}`)).json;
    expect(o).toMatchObject({ version: version + 1, data: { amount: 1, note: 'x', status: 'paid' } });
  });

  it('400 idempotency_key_missing, 403 forbidden_role, 409 approval_required, 422 for a key reused on another task', async () => {
    const t1 = await awaitingTask(ps);
    problemOf(await apply(ps, t1.id, null), 400, 'idempotency_key_missing');
    problemOf(await apply(ps, t1.id), 409, 'approval_required');
    await review(ps, t1.id, 'approve', 1);
    problemOf(await apply(ps, t1.id, newKey(), 'reviewer-token'), 403, 'forbidden_role');
    const key = newKey();
    expect((await apply(ps, t1.id, key)).status).toBe(200);
    const t2 = await awaitingTask(ps);
    await review(ps, t2.id, 'approve', 1);
    problemOf(await apply(ps, t2.id, key), 422, 'idempotency_key_reused');
    expect(await objectVersion(ps, t2.ref)).toBe(t2.version);
  });

  it('the object changed after approval: the task is redrafted at once, its approval lapses, apply is 409 stale_object_version', async () => {
    const { id, ref } = await awaitingTask(ps);
    await review(ps, id, 'approve', 1);
    const changed = await ps.control('PUT', `/_control/objects/${ref}`, { body: { tenant: 'acme', data: { amount: 50 } } });
    expect(changed.json.redrafted_tasks).toEqual([id]);
    const t = (await readTask(ps, id)).json;
    expect(t).toMatchObject({ state: 'awaiting_review', review: null, result: { proposal: { proposal_version: 2, base_version: 2 } } });
    const p = problemOf(await apply(ps, id), 409, 'stale_object_version');
    expect(p.current_version).toBe(2);
    expect(await objectVersion(ps, ref)).toBe(2);
    await review(ps, id, 'approve', 2);
    expect((await apply(ps, id)).json.application.new_version).toBe(3);
  });

  it('the approver lost the reviewer role: 409 approval_required and the approval lapses', async () => {
    const { id, ref, version } = await awaitingTask(ps);
    await review(ps, id, 'approve', 1);
    await ps.control('PUT', '/_control/principals', {
      body: { tokens: { 'reviewer-token': { tenant: 'acme', subject: 'reviewer-1', roles: [] } } },
    });
    try {
      problemOf(await apply(ps, id), 409, 'approval_required');
      expect((await readTask(ps, id)).json).toMatchObject({ state: 'awaiting_review', review: null });
      expect(await objectVersion(ps, ref)).toBe(version);
    } finally {
      await ps.control('PUT', '/_control/principals', {
        body: { tokens: { 'reviewer-token': { tenant: 'acme', subject: 'reviewer-1', roles: ['reviewer'] } } },
      });
    }
  });

  it('applying one task redrafts the others open on the same object', async () => {
    const ref = newRef();
    const v = await putObject(ps, ref);
    const a = (await createTask(ps, ref, v, { input: { changes: { a: 1 } } })).json.task_id;
    const b = (await createTask(ps, ref, v, { input: { changes: { b: 1 } } })).json.task_id;
    await readTask(ps, a);
    await review(ps, a, 'approve', 1);
    await review(ps, b, 'approve', 1);
    expect((await apply(ps, a)).status).toBe(200);
    expect((await readTask(ps, b)).json).toMatchObject({
      state: 'awaiting_review',
      result: { proposal: { proposal_version: 2, base_version: v + 1 } },
    });
    problemOf(await apply(ps, b), 409, 'stale_object_version');
  });

  it('apply behaviour fail: 409 apply_failed, the task ends apply_failed, the object is unchanged, the key replays', async () => {
    await ps.control('PUT', '/_control/task-behavior', { body: { draft_ms: 0, apply: 'fail' } });
    const { id, ref, version } = await awaitingTask(ps);
    await review(ps, id, 'approve', 1);
    const key = newKey();
    const a = await apply(ps, id, key);
    const p = problemOf(a, 409, 'apply_failed');
    expect(p.task).toMatchObject({ state: 'apply_failed', error: { code: 'apply_failed' } });
    const b = await apply(ps, id, key);
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    problemOf(await apply(ps, id, newKey()), 409, 'invalid_state');
    expect(await objectVersion(ps, ref)).toBe(version);
  });

  it('a lost apply answer: applied once, the retry with the same key returns it', async () => {
    const { id, ref, version } = await awaitingTask(ps);
    await review(ps, id, 'approve', 1);
    const key = newKey();
    await ps.control('PUT', '/_control/faults', { body: { rules: [{ on: 'apply', nth: 1, fault: { type: 'lose_response' } }] } });
    await expect(apply(ps, id, key)).rejects.toThrow();
    expect(await objectVersion(ps, ref)).toBe(version + 1);
    const b = await apply(ps, id, key);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json.application.idempotency_key).toBe(key);
    expect(await objectVersion(ps, ref)).toBe(version + 1);
  });

  it('error_after_commit on apply: 500, but applied; the retry replays the 200', async () => {
    const { id, ref, version } = await awaitingTask(ps);
    await review(ps, id, 'approve', 1);
    const key = newKey();
    await ps.control('PUT', '/_control/faults', { body: { rules: [{ on: 'apply', nth: 1, fault: { type: 'error_after_commit' } }] } });
    problemOf(await apply(ps, id, key), 500, 'internal_error');
    const b = await apply(ps, id, key);
    expect(b.status).toBe(200);
    expect(await objectVersion(ps, ref)).toBe(version + 1);
  });
});

describe('GET /v1/tasks/{id}/audit', () => {
  it('every event in order: initiator, keys, versions read, sources, transitions with causes, review, application; no tokens', async () => {
    const { id, ref } = await awaitingTask(ps);
    await review(ps, id, 'approve', 1);
    await putObject(ps, ref, { amount: 3 });
    await review(ps, id, 'approve', 2);
    problemOf(await apply(ps, id, newKey('refused'), 'reviewer-token'), 403, 'forbidden_role');
    const key = newKey('apply');
    await apply(ps, id, key);
    const a = await ps.call('GET', `/v1/tasks/${id}/audit`);
    expect(a.status).toBe(200);
    const ev = a.json.events as Array<Record<string, any>>;
    expect(ev.map((e) => e.seq)).toEqual(ev.map((_, i) => i + 1));
    const kinds = ev.map((e) => (e.type === 'transition' ? `${e.from}→${e.to}` : e.type));
    expect(kinds).toEqual([
      'created',
      'object_read',
      'null→queued',
      'queued→running',
      'object_read',
      'draft',
      'running→awaiting_review',
      'review',
      'awaiting_review→approved',
      'object_read',
      'draft',
      'approval_lapsed',
      'approved→awaiting_review',
      'review',
      'awaiting_review→approved',
      'apply_requested',
      'approved→applying',
      'application',
      'applying→applied',
    ]);
    expect(ev[0]).toMatchObject({
      actor: 'agent-1',
      initiator: 'agent-1',
      idempotency_key: expect.any(String),
      object_ref: ref,
      object_version: 1,
    });
    expect(ev.find((e) => e.type === 'draft')).toMatchObject({ proposal_version: 1, base_version: 1, sources: [{ ref, version: 1 }] });
    expect(ev[12].cause).toMatch(/redrafted.*version 1 to 2.*approval lapsed/);
    expect(ev[13]).toMatchObject({ reviewer: 'reviewer-1', decision: 'approved', proposal_version: 2 });
    expect(ev[17]).toMatchObject({ result: 'applied', idempotency_key: key, base_version: 2, new_version: 3 });
    for (const secret of ['dev-token', 'reviewer-token', 'control-token', 'whsec_']) expect(a.text).not.toContain(secret);
  });
});

describe('control additions', () => {
  it('validates bodies: objects, principals, task behaviour', async () => {
    problemOf(await ps.control('PUT', '/_control/objects/x', { body: { data: {} } }), 400, 'invalid_request');
    problemOf(await ps.control('PUT', '/_control/objects/x', { body: '{' }), 400, 'invalid_json');
    problemOf(
      await ps.control('PUT', '/_control/principals', { body: { tokens: { t: { tenant: 'a', subject: 's', roles: ['admin'] } } } }),
      400,
      'invalid_request',
    );
    problemOf(await ps.control('PUT', '/_control/task-behavior', { body: { outcome: 'maybe' } }), 400, 'invalid_request');
    problemOf(await ps.call('PUT', '/_control/task-behavior', { body: {} }), 401, 'unauthorized');
    expect((await ps.control('GET', '/_control/task-behavior')).json).toEqual({ draft_ms: 0, outcome: 'awaiting_review', apply: 'ok' });
  });

  it('principals change at run time: a new token works at once, a removed one is 401', async () => {
    await ps.control('PUT', '/_control/principals', {
      body: { tokens: { 'tok-new': { tenant: 'acme', subject: 'rev-2', roles: ['reviewer'] } } },
    });
    const { id } = await awaitingTask(ps);
    expect((await review(ps, id, 'approve', 1, 'tok-new')).json.review.reviewer).toBe('rev-2');
    await ps.control('PUT', '/_control/principals', { body: { tokens: { 'tok-new': null } } });
    problemOf(await readTask(ps, id, 'tok-new'), 401, 'unauthorized');
  });

  it('405 for other methods on task routes', async () => {
    const a = await ps.call('DELETE', '/v1/tasks/task_x');
    problemOf(a, 405, 'method_not_allowed');
    expect(a.headers.get('allow')).toBe('GET');
  });
});

describe('reset', () => {
  it('forgets tasks and objects and restores the initial token table', async () => {
    const local = await startProviderServer();
    try {
      await local.control('PUT', '/_control/task-behavior', { body: { draft_ms: 0 } });
      const { id, ref } = await awaitingTask(local);
      await local.control('PUT', '/_control/principals', { body: { tokens: { 'dev-token': null } } });
      problemOf(await readTask(local, id), 401, 'unauthorized');
      await local.control('POST', '/_control/reset');
      problemOf(await readTask(local, id), 404, 'task_not_found');
      problemOf(await local.call('GET', `/v1/objects/${ref}`), 404, 'object_not_found');
    } finally {
      await local.stop();
    }
  });
});
