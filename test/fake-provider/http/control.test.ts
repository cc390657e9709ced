import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobSchema } from '../../../src/contract/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { createBody, newKey, problemOf, startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';

let ps: ProviderServer;
let clock: VirtualClock;

beforeAll(async () => {
  clock = new VirtualClock();
  ps = await startProviderServer({ clock, behavior: { default: { duration_ms: 10_000 } } });
});
afterAll(async () => ps.stop());

const create = async (token = 'dev-token', key = newKey(), body = createBody()) =>
  ps.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': key }, body });

describe('control API', () => {
  it.each([
    ['GET', '/_control/jobs'],
    ['GET', '/_control/journal'],
    ['GET', '/_control/faults'],
    ['PUT', '/_control/faults'],
    ['DELETE', '/_control/faults'],
    ['PUT', '/_control/behavior'],
    ['POST', '/_control/reset'],
    ['POST', '/_control/clock'],
  ])('%s %s: 401 unauthorized without the control token, and does nothing', async (method, path) => {
    const before = (await ps.control('GET', '/_control/jobs')).json.data.length;
    for (const token of [null, 'dev-token', 'wrong']) {
      const res = await ps.call(method, path, { token, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      problemOf(res, 401, 'unauthorized');
    }
    expect((await ps.control('GET', '/_control/jobs')).json.data.length).toBe(before);
  });

  it('GET /_control/jobs lists every job of every tenant with tenant and behaviour', async () => {
    const a = (await create('dev-token')).json.job_id;
    const b = (await create('other-tenant-token')).json.job_id;
    const res = await ps.control('GET', '/_control/jobs');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const byId = new Map(res.json.data.map((j: { job_id: string }) => [j.job_id, j]));
    const ja = byId.get(a) as Record<string, any>;
    expect(ja).toMatchObject({ tenant: 'acme', behavior: expect.objectContaining({ duration_ms: 10_000, mode: 'async' }) });
    expect(JobSchema.safeParse(ja).success).toBe(true);
    expect(byId.get(b)).toMatchObject({ tenant: 'globex' });
  });

  it('PUT /_control/behavior applies to jobs created after it; a bad behaviour is 400 naming the field', async () => {
    const before = (await create()).json.job_id;
    const put = await ps.control('PUT', '/_control/behavior', {
      body: { default: { duration_ms: 500, items: 3 }, by_kind: { quick: { mode: 'sync' } } },
    });
    expect(put.status).toBe(200);
    expect(put.json.default).toMatchObject({
      duration_ms: 500,
      items: 3,
      mode: 'async',
      outcome: 'succeeded',
      commit_point: 0.8,
      cancel: 'honour',
      cancel_ms: 200,
    });
    expect((await ps.control('GET', '/_control/behavior')).json).toEqual(put.json);
    const after = (await create()).json.job_id;
    const quick = await create('dev-token', newKey(), { kind: 'quick', input: {} });
    expect(quick.status).toBe(200);
    await clock.advance(500);
    expect((await ps.call('GET', `/v1/jobs/${after}`)).json.state).toBe('succeeded');
    expect((await ps.call('GET', `/v1/jobs/${before}`)).json.state).toBe('running');

    const bad: Array<[unknown, string]> = [
      [{ default: { duration_ms: -1 } }, 'default.duration_ms'],
      [{ default: { mode: 'later' } }, 'default.mode'],
      [{ default: { outcome: 'maybe' } }, 'default.outcome'],
      [{ default: { commit_point: 2 } }, 'default.commit_point'],
      [{ default: { items: 2, items_failed: 3 } }, 'default.items_failed'],
      [{ default: { durationMs: 5 } }, 'default'],
      [{ by_kind: { report: { cancel: 'refuse' } } }, 'by_kind.report.cancel'],
      [{ defaults: {} }, '(body)'],
    ];
    for (const [body, path] of bad) {
      const res = await ps.control('PUT', '/_control/behavior', { body });
      const p = problemOf(res, 400, 'invalid_request');
      expect(p.errors.map((e: { path: string }) => e.path)).toContain(path);
      expect(p.detail).toContain(path === '(body)' ? '' : path);
    }
    problemOf(
      await ps.control('PUT', '/_control/behavior', { body: '{bad', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_json',
    );
    // The refused updates changed nothing.
    expect((await ps.control('GET', '/_control/behavior')).json).toEqual(put.json);
    await ps.control('PUT', '/_control/behavior', { body: { default: { duration_ms: 10_000 } } });
  });

  it('PUT/GET/DELETE /_control/faults: install, count hits per rule, clear; a bad plan is 400', async () => {
    const plan = {
      seed: 7,
      rules: [
        { id: 'slow-status', on: 'status', nth: [2, 3], fault: { type: 'rate_limit', retry_after: 1 } },
        { on: 'create', fault: 'fail_before_commit' },
      ],
    };
    const put = await ps.control('PUT', '/_control/faults', { body: plan });
    expect(put.status).toBe(200);
    expect(put.json.rules.map((r: { id: string; hits: number }) => [r.id, r.hits])).toEqual([
      ['slow-status', 0],
      ['rule-2', 0],
    ]);
    expect(put.json.rules[1].fault).toEqual({ type: 'fail_before_commit', status: 503 });
    const id = 'job_whatever';
    expect((await ps.call('GET', `/v1/jobs/${id}`)).status).toBe(404);
    expect((await ps.call('GET', `/v1/jobs/${id}`)).status).toBe(429);
    expect((await ps.call('GET', `/v1/jobs/${id}`)).status).toBe(429);
    expect((await ps.call('GET', `/v1/jobs/${id}`)).status).toBe(404);
    expect((await create()).status).toBe(503);
    const got = await ps.control('GET', '/_control/faults');
    expect(got.json.seed).toBe(7);
    expect(got.json.rules.map((r: { hits: number }) => r.hits)).toEqual([2, 1]);
    expect(got.json.counts).toMatchObject({ status: 4, create: 1 });

    const del = await ps.control('DELETE', '/_control/faults');
    expect(del.json.rules).toEqual([]);
    expect((await create()).status).toBe(202);

    const bad: Array<[unknown, string]> = [
      [{ rules: [{ on: 'create', fault: { type: 'explode' } }] }, 'rules.0.fault.type'],
      [{ rules: [{ on: 'webhook', fault: { type: 'rate_limit' } }] }, 'rules.0.fault.type'],
      [{ rules: [{ on: 'status', fault: { type: 'foreign_job_id' } }] }, 'rules.0.on'],
      [{ rules: [{ on: 'nowhere', fault: 'drop' }] }, 'rules.0.on'],
      [{ rules: [{ on: 'create', nth: 0, fault: 'error_after_commit' }] }, 'rules.0.nth'],
      [{ rules: [{ on: 'create', probability: 1.5, fault: 'error_after_commit' }] }, 'rules.0.probability'],
      [{ rules: [{ on: 'create', fault: { type: 'delay' } }] }, 'rules.0.fault.ms'],
    ];
    for (const [body, path] of bad) {
      const p = problemOf(await ps.control('PUT', '/_control/faults', { body }), 400, 'invalid_request');
      expect(p.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    expect((await ps.control('GET', '/_control/faults')).json.rules).toEqual([]);
  });

  it('GET /_control/journal pages with ?since= and limit', async () => {
    for (let i = 0; i < 5; i++) await ps.call('GET', `/v1/jobs/job_page_${i}`, { headers: { 'x-trace-id': `tr_page_${i}` } });
    const all = await ps.control('GET', '/_control/journal');
    expect(all.status).toBe(200);
    const seqs = all.json.data.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(all.json.has_more).toBe(false);
    expect(all.json.next_since).toBe(seqs.at(-1));
    expect(all.json.data.length).toBe(ps.provider.journal.all().length);

    const collected: number[] = [];
    let since = 0;
    for (let guard = 0; guard < 1000; guard++) {
      const page = await ps.control('GET', `/_control/journal?since=${since}&limit=3`);
      expect(page.json.data.length).toBeLessThanOrEqual(3);
      collected.push(...page.json.data.map((e: { seq: number }) => e.seq));
      since = page.json.next_since;
      if (!page.json.has_more) break;
    }
    expect(collected).toEqual(seqs);
    const tail = await ps.control('GET', `/_control/journal?since=${seqs.at(-1)}`);
    expect(tail.json).toEqual({ data: [], next_since: seqs.at(-1), has_more: false });
    const traced = all.json.data.filter((e: { trace_id?: string }) => e.trace_id?.startsWith('tr_page_'));
    expect(traced.map((e: { trace_id: string }) => e.trace_id)).toEqual([0, 1, 2, 3, 4].map((i) => `tr_page_${i}`));
    problemOf(await ps.control('GET', '/_control/journal?since=-1'), 400, 'invalid_request');
    problemOf(await ps.control('GET', '/_control/journal?limit=zero'), 400, 'invalid_request');
  });

  it('control requests are not journalled (the journal is about the client under test)', async () => {
    const before = ps.provider.journal.lastSeq();
    await ps.control('GET', '/_control/jobs');
    await ps.control('GET', '/_control/faults');
    expect(ps.provider.journal.lastSeq()).toBe(before);
  });

  it('POST /_control/clock advances the virtual clock and moves jobs along', async () => {
    const id = (await create()).json.job_id;
    const t0 = clock.now();
    const res = await ps.control('POST', '/_control/clock', { body: { advance_ms: 10_000 } });
    expect(res.status).toBe(200);
    expect(res.json.now).toBe(new Date(t0 + 10_000).toISOString());
    expect((await ps.call('GET', `/v1/jobs/${id}`)).json.state).toBe('succeeded');
    for (const body of [{}, { advance_ms: -5 }, { advance_ms: 'soon' }, { advance_ms: 1, extra: 1 }]) {
      problemOf(await ps.control('POST', '/_control/clock', { body }), 400, 'invalid_request');
    }
  });

  it('POST /_control/reset forgets jobs, keys, faults and journal', async () => {
    const key = newKey('reset');
    const first = await create('dev-token', key);
    await ps.control('PUT', '/_control/faults', { body: { rules: [{ on: 'status', nth: 100, fault: 'rate_limit' }] } });
    const res = await ps.control('POST', '/_control/reset');
    expect(res.status).toBe(200);
    expect((await ps.control('GET', '/_control/jobs')).json.data).toEqual([]);
    expect((await ps.control('GET', '/_control/journal')).json.data).toEqual([]);
    expect((await ps.control('GET', '/_control/faults')).json.rules).toEqual([]);
    problemOf(await ps.call('GET', `/v1/jobs/${first.json.job_id}`), 404, 'job_not_found');
    // The key is free: a different body creates a fresh job.
    const again = await create('dev-token', key, createBody({ client_ref: 'after-reset' }));
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.json.job_id).not.toBe(first.json.job_id);
    // Behaviour is configuration, not state: it survives a reset.
    expect((await ps.control('GET', '/_control/behavior')).json.default.duration_ms).toBe(10_000);
  });

  it('unknown control routes are 404 problems', async () => {
    problemOf(await ps.control('GET', '/_control/nothing-here'), 404, 'not_found');
  });
});

describe('control API on a real clock / disabled', () => {
  it('POST /_control/clock is 409 clock_not_virtual on a real-clock provider', async () => {
    const real = await startProviderServer();
    try {
      problemOf(await real.control('POST', '/_control/clock', { body: { advance_ms: 1000 } }), 409, 'clock_not_virtual');
    } finally {
      await real.stop();
    }
  });

  it('is not served when control is off', async () => {
    const off = await startProviderServer({ control: false });
    try {
      problemOf(await off.control('GET', '/_control/jobs'), 404, 'not_found');
      problemOf(await off.control('POST', '/_control/reset'), 404, 'not_found');
    } finally {
      await off.stop();
    }
  });
});
