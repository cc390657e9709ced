/**
 * tasks-api.md leaves some things to the provider: its audit event names, where "the current version" or "the
 * application record" sits in a problem, what an approval answers, what proposal.sha256 is taken over, whether a
 * lapsed approval is cleared or kept as history. A provider written from the page alone that chose otherwise than the
 * page's examples at every such place (test/verify-provider/task-provider-choices.ts, OWN) passes every task check
 * it can run without a control API, with a pilot plan that names no audit event.
 */
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApplication } from '../../src/verify-provider/audit-application.js';
import { verifyProvider } from '../../src/verify-provider/index.js';
import { castOf, PilotPlanSchema, resolveTokens } from '../../src/verify-provider/plan.js';
import { minimalTaskProvider, type Who } from './minimal-task-provider.js';
import { OWN } from './task-provider-choices.js';

const TOKENS: Record<string, Who> = {
  'sub-1': { tenant: 'acme', subject: 'agent-1', roles: ['submitter'] },
  'sub-2': { tenant: 'acme', subject: 'agent-2', roles: ['submitter'] },
  'rev-1': { tenant: 'acme', subject: 'reviewer-1', roles: ['reviewer'] },
  'lead-1': { tenant: 'acme', subject: 'lead-1', roles: ['submitter', 'reviewer'] },
  'glx-1': { tenant: 'globex', subject: 'agent-9', roles: ['submitter'] },
};
let server: ServerType;
let url = '';

beforeAll(async () => {
  const p = minimalTaskProvider(TOKENS, 'admin-secret', OWN);
  p.seed('acme', 'note-1', { title: 'pilot', status: 'draft' });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: p.app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      url = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});
afterAll(() => server?.close());

describe('verify-provider follows the words of tasks-api.md, not the examples', () => {
  it('passes a provider that names its audit events and places its facts its own way', { timeout: 60_000 }, async () => {
    const plan = PilotPlanSchema.parse({
      url,
      apis: ['tasks'],
      tokens: Object.entries(TOKENS).map(([token, w]) => ({ token, ...w })),
      object: { ref: 'note-1' },
      change_object: { url: `${url}/admin/objects/{ref}/touch`, method: 'POST', headers: { authorization: 'Bearer admin-secret' } },
      timeout_ms: 5000,
    });
    const cast = castOf(resolveTokens(plan));
    const report = await verifyProvider({
      url,
      token: cast.token,
      token2: cast.token2,
      reviewerToken: cast.reviewerToken,
      otherTenantToken: cast.otherTenantToken,
      bothRolesToken: cast.bothRolesToken,
      tenants: Object.fromEntries(cast.tenantOf),
      plan,
      waitMs: plan.timeout_ms,
    });
    const failed = report.checks
      .filter((c) => c.status === 'failed')
      .map((c) => `${c.name}: ${c.explanation}\n  ${c.evidence.join('\n  ')}`);
    expect(failed).toEqual([]);
    const passed = report.checks.filter((c) => c.status === 'passed').map((c) => c.name);
    expect(passed).toHaveLength(11);
    const retry = report.checks.find((c) => c.name === 'task.apply-retry')!;
    expect(retry.evidence.join('\n')).toMatch(/recognised by the apply key: 'applied': 1 event/);
  });
});

describe('the application event, recognised by its key', () => {
  const k = 'key-a';
  const other = 'key-b';
  it('is the event type that carries the applied key and no other key, whatever its name or field', () => {
    const events = [
      { type: 'apply.received', request_key: k },
      { type: 'apply.received', request_key: k },
      { type: 'applied', detail: { request_key: k }, new_version: 2 },
      { type: 'apply.received', request_key: other },
      { type: 'apply.declined', request_key: other, code: 'already_applied' },
    ];
    const r = readApplication(events, k, [other]);
    expect(r.fault).toBeNull();
    expect(r.events).toEqual([events[2]]);
  });
  it('fails when no event carries the applied key, or every one is of a type logged under the other key too', () => {
    expect(readApplication([{ type: 'applied', new_version: 2 }], k, [other]).fault).toMatch(/no audit event carries/);
    const both = [
      { type: 'applied', key: k },
      { type: 'applied', key: other },
    ];
    expect(readApplication(both, k, [other]).fault).toMatch(/also logged under the other key/);
  });
  it("by a plan's event name: present, carrying the applied key, never the other", () => {
    expect(readApplication([{ type: 'applied', key: k }], k, [other], 'applied').fault).toBeNull();
    expect(readApplication([{ type: 'applied', key: k }], k, [other], 'application').fault).toMatch(/no 'application' event/);
    expect(readApplication([{ type: 'applied' }], k, [other], 'applied').fault).toMatch(/carries the apply Idempotency-Key/);
    const twice = [
      { type: 'applied', key: k },
      { type: 'applied', key: other },
    ];
    expect(readApplication(twice, k, [other], 'applied').fault).toMatch(/two logical applications/);
  });
});
