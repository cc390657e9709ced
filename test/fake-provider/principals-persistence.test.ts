import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOKENS } from '../../src/contract/index.js';
import { createProvider } from '../../src/fake-provider/index.js';

const dir = mkdtempSync(join(tmpdir(), 'jobproof-principals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONTROL = { authorization: 'Bearer control-token', 'content-type': 'application/json' };
const put = (p: ReturnType<typeof createProvider>, body: unknown) =>
  p.fetch('/_control/principals', { method: 'PUT', headers: CONTROL, body: JSON.stringify(body) });
const whoami = async (p: ReturnType<typeof createProvider>, token: string) =>
  (await p.fetch('/v1/jobs/job_none', { headers: { authorization: `Bearer ${token}` } })).status;

describe('principals changed through the control API persist across a restart on the same --db', () => {
  it('a token added and a role changed at run time are there after reopening; reset restores the configured table', async () => {
    const db = join(dir, 'p.db');
    const p1 = createProvider({ db });
    expect(
      (await put(p1, { tokens: { 'late-token': { tenant: 'acme', subject: 'late', roles: ['submitter'] }, 'dev-token-2': null } })).status,
    ).toBe(200);
    expect(await whoami(p1, 'late-token')).toBe(404);
    p1.close();

    const p2 = createProvider({ db });
    try {
      expect(p2.tokens.tokens['late-token']).toEqual({ tenant: 'acme', subject: 'late', roles: ['submitter'] });
      expect(p2.tokens.tokens['dev-token-2']).toBeUndefined();
      expect(await whoami(p2, 'late-token')).toBe(404); // known: 404 job_not_found, not 401
      expect(await whoami(p2, 'dev-token-2')).toBe(401);
      // Reset goes back to the table the provider was configured with (the defaults here), and that persists too.
      expect((await p2.fetch('/_control/reset', { method: 'POST', headers: CONTROL })).status).toBe(200);
      expect(p2.tokens.tokens).toEqual(DEFAULT_TOKENS);
    } finally {
      p2.close();
    }
    const p3 = createProvider({ db });
    expect(p3.tokens.tokens).toEqual(DEFAULT_TOKENS);
    p3.close();
  });

  it('a token table given at start replaces the stored one', async () => {
    const db = join(dir, 'q.db');
    const p1 = createProvider({ db });
    await put(p1, { tokens: { 'late-token': { tenant: 'acme', subject: 'late', roles: [] } } });
    p1.close();
    const given = { 'only-token': { tenant: 'acme', subject: 'o', roles: ['submitter' as const] } };
    const p2 = createProvider({ db, tokens: { tokens: given } });
    expect(p2.tokens.tokens).toEqual(given);
    p2.close();
  });

  it("a tenant without a webhook secret never gets another tenant's signature: the delivery fails with the reason", async () => {
    const sent: string[] = [];
    const p = createProvider({
      tokens: { tokens: { 'i-token': { tenant: 'initech', subject: 's', roles: ['submitter'] } } },
      behavior: { default: { duration_ms: 20 } },
      webhookFetch: async (url) => {
        sent.push(String(url));
        return new Response(null, { status: 204 });
      },
    });
    try {
      const res = await p.fetch('/v1/jobs', {
        method: 'POST',
        headers: { authorization: 'Bearer i-token', 'idempotency-key': 'k-1', 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'report', input: {}, webhook_url: 'http://127.0.0.1:9/hook' }),
      });
      expect(res.status).toBe(202);
      let hook: any;
      for (let i = 0; i < 400 && !hook; i++) {
        await new Promise((r) => setTimeout(r, 10));
        hook = p.journal.all().find((e) => e.type === 'webhook');
      }
      expect(hook).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/no webhook secret for tenant 'initech'/) });
      expect(sent).toEqual([]);
    } finally {
      await p.idle();
      p.close();
    }
  });
});
