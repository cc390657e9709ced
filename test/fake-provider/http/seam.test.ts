import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import type { FaultPlanInput, RequestEntry } from '../../../src/contract/index.js';
import { ProviderControl } from '../../../src/fake-provider/control.js';
import { buildApp } from '../../../src/fake-provider/http/app.js';
import type { Ctx } from '../../../src/fake-provider/http/context.js';
import type { ErrorRenderer } from '../../../src/fake-provider/http/mount.js';
import type { ProviderModule } from '../../../src/fake-provider/module.js';
import { inProcessFetch } from '../../../src/fake-provider/transports/in-process-fetch.js';
import { json } from '../../../src/fake-provider/http/problem.js';
import { described, seam } from '../../../src/fake-provider/http/seam/index.js';
import { settle, VirtualClock } from '../../../src/lib/clock.js';

/**
 * A route the provider does not have, in a dialect mount of its own: it gets every request fault, the journal and
 * its own error shape from the seam alone (docs/decisions/010-fault-seam.md). The handlers do no fault work.
 */
const openaiLike: ErrorRenderer = (e) => ({
  body: { error: { message: e.detail, type: e.status === 429 ? 'rate_limit_error' : 'api_error', param: null, code: e.code } },
});

function describeThing(c: Ctx): string {
  c.get('draft').client_ref = c.req.query('ref') ?? null;
  return c.req.param('id')!;
}

let p: Provider;
let f: typeof fetch;
let clock: VirtualClock;
let handled: number;
beforeEach(() => {
  clock = new VirtualClock();
  p = createProvider({ clock });
  handled = 0;
  // A module of its own, like a dialect: its prefix, its error shape and credentials, its routes behind the seam.
  const toy: ProviderModule = {
    name: 'toy',
    mounts: [{ prefix: '/toy/v1', mount: { dialect: 'openai', renderError: openaiLike, credentials: (h) => h.get('x-api-key') } }],
    routes: (app) => {
      app.get('/toy/v1/things/:id', seam(p.core, 'status', { describe: describeThing }), (c) => {
        handled += 1;
        c.var.draft.effect = 'read';
        return json({ id: described(c, describeThing), tenant: c.var.principal.tenant });
      });
      app.post('/toy/v1/holds', seam(p.core, 'create', { hold: true }), async (c) => {
        handled += 1;
        await c.var.hold();
        handled += 1;
        return json({ ok: true }, 202);
      });
    },
    tick: () => undefined,
    reset: () => undefined,
    close: () => undefined,
  };
  f = inProcessFetch(buildApp(p.core, [toy], new ProviderControl({ core: p.core, resets: [], configuredTokens: {} })));
});
afterEach(() => p.close());

const get = (path = '/toy/v1/things/t1?ref=r1', key = 'dev-token') => f(path, { headers: { 'x-api-key': key } });
const faults = (rules: FaultPlanInput['rules']) => p.control.setFaults({ rules });
const lastRequest = () =>
  p.journal
    .all()
    .filter((e): e is RequestEntry => e.type === 'request')
    .at(-1)!;

describe('the fault seam around a new route in a new mount', () => {
  it('runs the handler with the principal and the described input, and journals the dialect', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 't1', tenant: 'acme' });
    expect(lastRequest()).toMatchObject({
      route: 'status',
      dialect: 'openai',
      client_ref: 'r1',
      effect: 'read',
      tenant: 'acme',
      fault: null,
    });
  });

  it("answers 401 in the mount's error shape, without counting a fault", async () => {
    await faults([{ on: 'status', nth: 1, fault: { type: 'rate_limit' } }]);
    const res = await get(undefined, 'nope');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { message: 'unknown bearer token', type: 'api_error', param: null, code: 'unauthorized' } });
    expect((await get()).status).toBe(429);
  });

  it('refuses before the handler (rate_limit, fail_before_commit) in the mount shape, journalled with what describe read', async () => {
    await faults([
      { id: 'rl', on: 'status', nth: 1, fault: { type: 'rate_limit', retry_after: 3 } },
      { id: 'fb', on: 'status', nth: 2, fault: { type: 'fail_before_commit', status: 502 } },
    ]);
    const a = await get();
    expect(a.status).toBe(429);
    expect(a.headers.get('retry-after')).toBe('3');
    expect(await a.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limited' } });
    expect(lastRequest()).toMatchObject({
      status: 429,
      code: 'rate_limited',
      effect: 'none',
      client_ref: 'r1',
      fault: { rule_id: 'rl' },
      dialect: 'openai',
    });
    const b = await get();
    expect(b.status).toBe(502);
    expect(lastRequest()).toMatchObject({ code: 'provider_unavailable', fault: { rule_id: 'fb' } });
    expect(handled).toBe(0);
  });

  it('enacts after the handler: error_after_commit answers 500 once executed; lose_response loses the answer', async () => {
    await faults([
      { id: 'eac', on: 'status', nth: 1, fault: { type: 'error_after_commit' } },
      { id: 'lose', on: 'status', nth: 2, fault: { type: 'lose_response' } },
    ]);
    const a = await get();
    expect(a.status).toBe(500);
    expect(await a.json()).toMatchObject({ error: { code: 'internal_error' } });
    expect(lastRequest()).toMatchObject({ status: 500, effect: 'read', delivery: 'delivered', fault: { rule_id: 'eac' } });
    await expect(get()).rejects.toThrow('fetch failed');
    expect(lastRequest()).toMatchObject({ status: 200, effect: 'read', delivery: 'lost', fault: { rule_id: 'lose' } });
    expect(handled).toBe(2);
  });

  it('delays before the handler, or where a hold route calls hold()', async () => {
    await faults([
      { on: 'status', nth: 1, fault: { type: 'delay', ms: 1000 } },
      { on: 'create', nth: 1, fault: { type: 'delay', ms: 1000 } },
    ]);
    let done = false;
    const read = get().then((r) => (done = r.ok));
    await settle();
    expect([done, handled]).toEqual([false, 0]);
    await clock.advance(1000);
    await read;
    expect([done, handled]).toEqual([true, 1]);
    expect(lastRequest()).toMatchObject({ delivery: 'delayed' });

    handled = 0;
    const held = f('/toy/v1/holds', { method: 'POST', headers: { 'x-api-key': 'dev-token' } });
    await settle();
    // The handler ran up to its hold point, and waits there.
    expect(handled).toBe(1);
    await clock.advance(1000);
    expect((await held).status).toBe(202);
    expect(handled).toBe(2);
  });

  it("answers an unknown path and an oversized body under the mount in the mount's shape; native paths stay native", async () => {
    const res = await get('/toy/v1/nothing');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    expect(lastRequest()).toMatchObject({ status: 404, dialect: 'openai', route: null });
    const big = await f('/toy/v1/holds', { method: 'POST', headers: { 'x-api-key': 'dev-token' }, body: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(lastRequest()).toMatchObject({ status: 413, dialect: 'openai' });
    expect(handled).toBe(0);
    const native = await f('/v1/nothing');
    expect(native.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(lastRequest().dialect).toBeUndefined();
  });
});

describe('the seam on the native create: answers given before anything executed pass untouched', () => {
  const create = (key: string | null, body: unknown = { kind: 'report', input: {} }) =>
    p.fetch('/v1/jobs', {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });

  it('a refused create (no key, a reused key) is neither lost nor turned into a 500; an executed one is', async () => {
    await faults([
      { id: 'lose', on: 'create', nth: [1, 3], fault: { type: 'lose_response' } },
      { id: 'eac', on: 'create', nth: 4, fault: { type: 'error_after_commit' } },
    ]);
    const missing = await create(null);
    expect(missing.status).toBe(400);
    expect(lastRequest()).toMatchObject({ code: 'idempotency_key_missing', delivery: 'delivered', fault: { rule_id: 'lose' } });
    expect((await create('k1')).status).toBe(202);
    await expect(create('k2')).rejects.toThrow('fetch failed');
    expect(lastRequest()).toMatchObject({ effect: 'created', delivery: 'lost', fault: { rule_id: 'lose' } });
    const reused = await create('k1', { kind: 'report', input: { other: 1 } });
    expect(reused.status).toBe(422);
    expect(lastRequest()).toMatchObject({ code: 'idempotency_key_reused', effect: 'none', fault: { rule_id: 'eac' } });
  });

  it('foreign_job_id: a replay names a job the key never created, and the journal says so', async () => {
    await faults([{ id: 'foreign', on: 'create', nth: 2, fault: { type: 'foreign_job_id' } }]);
    const first = (await (await create('kf')).json()) as { job_id: string };
    const replay = await create('kf');
    const body = (await replay.json()) as { job_id: string; status_url: string };
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(body.job_id).not.toBe(first.job_id);
    expect(body.status_url).toBe(`/v1/jobs/${body.job_id}`);
    expect(replay.headers.get('location')).toBe(`/v1/jobs/${body.job_id}`);
    // The journal says what the client was told: the id served (the key's own stays in the created entry).
    expect(lastRequest()).toMatchObject({ effect: 'foreign_replay', job_id: body.job_id, job_state: null, fault: { rule_id: 'foreign' } });
  });
});
