/**
 * The docs' worked example (examples/profiles/reports.json, the seed's `/v1/reports` API) over real HTTP: its
 * Idempotency-Key, 202 + Location, state and progress; the fault seam's route names; the journal naming the profile.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProfileText } from '../../../src/contract/profile-check.js';
import { startDialectServer, type DialectServer } from '../dialects/helpers.js';

const text = readFileSync(join(import.meta.dirname, '..', '..', '..', 'examples', 'profiles', 'reports.json'), 'utf8');
const parsed = parseProfileText(text);
if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
const BASE = '/profiles/reports/v1/reports';
const body = { account: 'acct_218', range: { start: '2025-02-01', end: '2025-02-28' }, format: 'csv' };

let s: DialectServer;
beforeAll(async () => {
  s = await startDialectServer({ profiles: [parsed.profile] });
  await s.control('PUT', '/_control/behavior', { body: { default: { duration_ms: 2000, items: 500 } } });
});
afterAll(() => s.stop());

describe('the /v1/reports profile', () => {
  it('is under 80 lines', () => {
    expect(text.trim().split('\n').length).toBeLessThan(80);
  });

  it('creates with Idempotency-Key (202 + Location), replays a retry, refuses a reused key with another body', async () => {
    const key = { 'idempotency-key': 'idem_5b5c76c7' };
    const first = await s.call('POST', BASE, { headers: key, body });
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ state: 'queued', status_url: `${BASE}/${first.json.job_id}` });
    expect(first.headers.get('location')).toBe(first.json.status_url);
    const again = await s.call('POST', BASE, { headers: key, body });
    expect(again.status).toBe(202);
    expect(again.json.job_id).toBe(first.json.job_id);
    const reused = await s.call('POST', BASE, { headers: key, body: { ...body, format: 'pdf' } });
    expect(reused.status).toBe(422);
    expect(reused.headers.get('content-type')).toBe('application/problem+json');
    const missing = await s.call('POST', BASE, { body });
    expect(missing.status).toBe(400);
    expect((await s.call('POST', BASE, { headers: { 'idempotency-key': 'k2' }, body: { account: 'a' } })).status).toBe(400);
  });

  it('reads state and progress with Retry-After; a fault rule on `read` hits the profile route', async () => {
    const c = await s.call('POST', BASE, { headers: { 'idempotency-key': 'idem-progress' }, body });
    await s.advance(1000);
    const r = await s.call('GET', `${BASE}/${c.json.job_id}`);
    expect(r.json.state).toBe('running');
    expect(r.json.progress.total).toBe(500);
    expect(r.json.progress.completed).toBeGreaterThan(0);
    expect(r.headers.get('retry-after')).toBe('1');
    await s.control('PUT', '/_control/faults', {
      body: { seed: 1, rules: [{ on: 'read', nth: 1, fault: { type: 'rate_limit', retry_after: 2 } }] },
    });
    const limited = await s.call('GET', `${BASE}/${c.json.job_id}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    await s.control('DELETE', '/_control/faults');
  });

  it('journals each request with the profile as its API and the judge-facing fields', async () => {
    const entries = s.provider.journal.all().filter((e) => e.type === 'request' && e.path.startsWith('/profiles/reports'));
    expect(entries.length).toBeGreaterThan(5);
    for (const e of entries) if (e.type === 'request') expect(e.dialect).toBe('reports');
    const created = entries.find((e) => e.type === 'request' && e.effect === 'created');
    expect(created).toMatchObject({ route: 'create', idempotency_key: 'idem_5b5c76c7', job_state: 'queued' });
    const limited = entries.find((e) => e.type === 'request' && e.status === 429);
    expect(limited).toMatchObject({ route: 'status', fault: { type: 'rate_limit' } });
  });
});
