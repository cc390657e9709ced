import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBody,
  journalEntryFor,
  newKey,
  problemOf,
  startProviderServer,
  waitFor,
  type ProviderServer,
} from '../../helpers/provider-server.js';

let ps: ProviderServer;
let acmeJob: string;
let doneJob: string;

beforeAll(async () => {
  ps = await startProviderServer({ behavior: { default: { duration_ms: 3_600_000 }, by_kind: { quick: { mode: 'sync' } } } });
  acmeJob = (await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: createBody() })).json.job_id;
  doneJob = (await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: { kind: 'quick', input: {} } })).json
    .job_id;
  // The hour-long job leaves `queued` on its own soon after the create: the tenancy test compares its view before and
  // after foreign requests, so it starts once the job has settled into `running`.
  await waitFor(async () => (await ps.call('GET', `/v1/jobs/${acmeJob}`)).json.state === 'running');
});
afterAll(async () => ps.stop());

const endpoints = (id: string): Array<[string, string]> => [
  ['POST', '/v1/jobs'],
  ['GET', '/v1/jobs?client_ref=x'],
  ['GET', `/v1/jobs/${id}`],
  ['POST', `/v1/jobs/${id}/cancel`],
  ['GET', `/v1/jobs/${id}/results`],
];

describe('authentication', () => {
  const badAuth: Array<[string, Record<string, string>]> = [
    ['no Authorization', {}],
    ['unknown token', { authorization: 'Bearer not-a-token' }],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['Basic scheme', { authorization: 'Basic ZGV2LXRva2VuOg==' }],
    ['token without scheme', { authorization: 'dev-token' }],
    ['two tokens', { authorization: 'Bearer dev-token dev-token-2' }],
    ['control token', { authorization: 'Bearer control-token' }],
  ];
  for (const [name, headers] of badAuth) {
    it(`401 unauthorized on every endpoint: ${name}`, async () => {
      for (const [method, path] of endpoints(acmeJob)) {
        const res = await ps.call(method, path, {
          token: null,
          headers: { ...headers, 'idempotency-key': newKey() },
          body: method === 'POST' ? createBody() : undefined,
        });
        problemOf(res, 401, 'unauthorized');
        expect(journalEntryFor(ps.provider, res)).toMatchObject({ status: 401, tenant: null, subject: null, effect: 'none' });
      }
    });
  }

  it('accepts the scheme case-insensitively', async () => {
    expect((await ps.call('GET', `/v1/jobs/${acmeJob}`, { token: null, headers: { authorization: 'bearer dev-token' } })).status).toBe(200);
  });
});

describe('tenancy', () => {
  it('another tenant gets 404 job_not_found (never 403) on read, cancel and results, and the job is untouched', async () => {
    for (const id of [acmeJob, doneJob]) {
      const before = (await ps.call('GET', `/v1/jobs/${id}`)).json;
      for (const [method, path] of endpoints(id).slice(2)) {
        const res = await ps.call(method, path, { token: 'other-tenant-token' });
        const p = problemOf(res, 404, 'job_not_found');
        expect(p.job).toBeUndefined();
        expect(res.text).not.toContain('acme');
        expect(journalEntryFor(ps.provider, res)).toMatchObject({ tenant: 'globex', effect: 'none', job_state: null });
      }
      const after = (await ps.call('GET', `/v1/jobs/${id}`)).json;
      expect({ ...after, progress: null, updated_at: null }).toEqual({ ...before, progress: null, updated_at: null });
    }
  });

  it('a foreign job and a missing job are indistinguishable', async () => {
    const foreign = await ps.call('GET', `/v1/jobs/${acmeJob}`, { token: 'other-tenant-token' });
    const missing = await ps.call('GET', '/v1/jobs/job_missing', { token: 'other-tenant-token' });
    const strip = (p: Record<string, unknown>) => ({ ...p, request_id: null, detail: null });
    expect(strip(foreign.json)).toEqual(strip(missing.json));
    expect(foreign.status).toBe(missing.status);
  });

  it('a job belongs to its tenant: another subject of the same tenant reads it', async () => {
    const res = await ps.call('GET', `/v1/jobs/${acmeJob}`, { token: 'dev-token-2' });
    expect(res.status).toBe(200);
    expect((await ps.call('GET', `/v1/jobs/${doneJob}/results`, { token: 'reviewer-token' })).status).toBe(200);
  });

  it('idempotency keys are scoped per tenant and subject: the same key creates one job per principal', async () => {
    const key = newKey('shared');
    const ids: string[] = [];
    for (const token of ['dev-token', 'dev-token-2', 'other-tenant-token']) {
      const res = await ps.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': key }, body: createBody() });
      expect(res.status).toBe(202);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      ids.push(res.json.job_id);
    }
    expect(new Set(ids).size).toBe(3);
    // A different body under the same key by another principal is not a mismatch either.
    const other = await ps.call('POST', '/v1/jobs', {
      token: 'reviewer-token',
      headers: { 'idempotency-key': key },
      body: createBody({ client_ref: 'different' }),
    });
    expect(other.status).toBe(202);
    const jobs = (await ps.control('GET', '/_control/jobs')).json.data.filter((j: { job_id: string }) =>
      [...ids, other.json.job_id].includes(j.job_id),
    );
    expect(jobs.map((j: { tenant: string; subject: string }) => `${j.tenant}/${j.subject}`).sort()).toEqual([
      'acme/agent-1',
      'acme/agent-2',
      'acme/reviewer-1',
      'globex/agent-9',
    ]);
  });

  it('tenant and subject come from the token only, never from the body', async () => {
    const res = await ps.call('POST', '/v1/jobs', {
      token: 'other-tenant-token',
      headers: { 'idempotency-key': newKey() },
      body: { kind: 'report', input: { tenant: 'acme', subject: 'agent-1' } },
    });
    expect(res.status).toBe(202);
    const job = (await ps.control('GET', '/_control/jobs')).json.data.find((j: { job_id: string }) => j.job_id === res.json.job_id);
    expect(job).toMatchObject({ tenant: 'globex', subject: 'agent-9' });
    problemOf(
      await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey() }, body: { ...createBody(), tenant: 'globex' } }),
      400,
      'invalid_request',
    );
  });

  it('custom tokens replace the defaults', async () => {
    const custom = await (await import('../../helpers/provider-server.js')).startProviderServer({
      tokens: { tokens: { 'tok-a': { tenant: 't1', subject: 's1', roles: ['submitter'] } }, control_token: 'ctl' },
    });
    try {
      problemOf(await custom.call('GET', '/v1/jobs?client_ref=x'), 401, 'unauthorized');
      expect((await custom.call('GET', '/v1/jobs?client_ref=x', { token: 'tok-a' })).status).toBe(200);
      expect((await custom.call('GET', '/_control/jobs', { token: 'ctl' })).status).toBe(200);
      problemOf(await custom.call('GET', '/_control/jobs', { token: 'control-token' }), 401, 'unauthorized');
    } finally {
      await custom.stop();
    }
  });
});
