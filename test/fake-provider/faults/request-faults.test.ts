/**
 * Every request fault, seen twice: over real HTTP (serve on port 0, global fetch) and in-process (provider.fetch on
 * a VirtualClock). Each test checks what the client sees and what the journal records about the same request.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/lib/clock.js';
import { createProvider, serve, type Provider } from '../../../src/fake-provider/index.js';
import type { FaultPlanInput, RequestEntry } from '../../../src/contract/index.js';
import { waitFor } from '../../helpers/provider-server.js';
import { controlInit, createInit, getInit, outcome, requests, settle, track } from './helpers.js';

interface Harness {
  provider: Provider;
  /** A fetch against the provider: real sockets or in-process. Paths are relative to the provider's base. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  clock: VirtualClock | null;
  close(): Promise<void>;
}

const transports: Array<{ name: string; open(): Promise<Harness> }> = [
  {
    name: 'real HTTP',
    async open() {
      const provider = createProvider({ behavior: { default: { duration_ms: 60_000 } } });
      const server = await serve(provider, { port: 0 });
      return {
        provider,
        clock: null,
        fetch: (path, init) => fetch(`${server.url}${path}`, init),
        close: async () => {
          await server.close();
          provider.close();
        },
      };
    },
  },
  {
    name: 'in-process',
    async open() {
      const clock = new VirtualClock();
      const provider = createProvider({ clock, behavior: { default: { duration_ms: 60_000 } } });
      return {
        provider,
        clock,
        fetch: (path, init) => provider.fetch(path, init),
        close: async () => provider.close(),
      };
    },
  },
];

function expectConnectionReset(error: unknown): void {
  expect(error).toBeInstanceOf(TypeError);
  expect((error as TypeError).message).toBe('fetch failed');
  const code = ((error as TypeError).cause as { code?: string } | undefined)?.code;
  expect(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']).toContain(code);
}

describe.each(transports)('request faults over $name', ({ open }) => {
  let h: Harness;
  beforeEach(async () => {
    h = await open();
  });
  afterEach(async () => {
    await h.close();
  });

  async function install(plan: FaultPlanInput): Promise<void> {
    const res = await h.fetch('/_control/faults', controlInit('PUT', plan));
    expect(res.status).toBe(200);
  }
  function creates(): RequestEntry[] {
    return requests(h.provider.journal.all()).filter((e) => e.route === 'create');
  }
  async function allJobs(): Promise<Array<{ job_id: string; idempotency_key?: string }>> {
    const res = await h.fetch('/_control/jobs', controlInit('GET'));
    return ((await res.json()) as { data: Array<{ job_id: string }> }).data;
  }
  async function jobsByKey(key: string): Promise<string[]> {
    const res = await h.fetch(`/v1/jobs?idempotency_key=${encodeURIComponent(key)}`, getInit());
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Array<{ job_id: string }> }).data.map((j) => j.job_id);
  }
  async function expectFreshCreate(key: string): Promise<string> {
    const res = await h.fetch('/v1/jobs', createInit(key));
    expect(res.status).toBe(202);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const body = (await res.json()) as { job_id: string };
    expect(creates().at(-1)).toMatchObject({ effect: 'created', job_id: body.job_id, idempotency_key: key, fault: null });
    return body.job_id;
  }
  async function expectReplayOf(key: string, jobId: string): Promise<void> {
    const res = await h.fetch('/v1/jobs', createInit(key));
    expect(res.status).toBe(202);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(res.headers.get('location')).toBe(`/v1/jobs/${jobId}`);
    expect(((await res.json()) as { job_id: string }).job_id).toBe(jobId);
    expect(creates().at(-1)).toMatchObject({ effect: 'replayed', job_id: jobId, delivery: 'delivered', fault: null });
  }

  it('lose_response reset: fetch rejects like a reset socket; the job is committed, the replay returns it', async () => {
    await install({ seed: 1, rules: [{ id: 'lose', on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const first = await outcome(h.fetch('/v1/jobs', createInit('key-reset')));
    expect(first.ok).toBe(false);
    if (!first.ok) expectConnectionReset(first.error);

    const [entry] = creates();
    expect(entry).toMatchObject({
      route: 'create',
      status: 202,
      effect: 'created',
      delivery: 'lost',
      lost_by: 'reset',
      idempotency_key: 'key-reset',
      fault: { rule_id: 'lose', type: 'lose_response', mode: 'reset' },
    });
    expect(entry!.job_id).toMatch(/^job_/);

    await expectReplayOf('key-reset', entry!.job_id!);
    expect(await jobsByKey('key-reset')).toEqual([entry!.job_id]);
    expect((await allJobs()).map((j) => j.job_id)).toEqual([entry!.job_id]);
  });

  it('lose_response hang: the answer never comes until the client gives up; the job is committed', async () => {
    await install({ seed: 2, rules: [{ id: 'hang', on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'hang' } }] });
    if (h.clock === null) {
      const r = await outcome(h.fetch('/v1/jobs', createInit('key-hang', {}, { signal: AbortSignal.timeout(300) })));
      expect(r.ok).toBe(false);
      if (!r.ok) expect((r.error as Error).name).toBe('TimeoutError');
    } else {
      const ac = new AbortController();
      const pending = track(h.fetch('/v1/jobs', createInit('key-hang', {}, { signal: ac.signal })));
      await settle();
      await h.clock.advance(10_000);
      expect(pending.settled()).toBe(false);
      // Executed and journalled while the client still waits.
      expect(creates()).toHaveLength(1);
      ac.abort();
      const r = await outcome(pending.promise);
      expect(r.ok).toBe(false);
      if (!r.ok) expect((r.error as Error).name).toBe('AbortError');
    }
    const [entry] = creates();
    expect(entry).toMatchObject({
      status: 202,
      effect: 'created',
      delivery: 'lost',
      lost_by: 'hang',
      fault: { rule_id: 'hang', type: 'lose_response' },
    });

    // The provider stays healthy: the next requests are answered normally.
    const read = await h.fetch(`/v1/jobs/${entry!.job_id}`, getInit());
    expect(read.status).toBe(200);
    expect(await jobsByKey('key-hang')).toEqual([entry!.job_id]);
    await expectReplayOf('key-hang', entry!.job_id!);
    expect(await allJobs()).toHaveLength(1);
  });

  it.each([
    { status: 500, retry_after: undefined },
    { status: 502, retry_after: 0 },
    { status: 503, retry_after: 7 },
  ] as const)(
    'fail_before_commit $status (retry_after $retry_after): nothing created, the key stays unused',
    async ({ status, retry_after }) => {
      const fault =
        retry_after === undefined
          ? { type: 'fail_before_commit' as const, status }
          : { type: 'fail_before_commit' as const, status, retry_after };
      await install({ seed: 3, rules: [{ id: 'fbc', on: 'create', nth: 1, fault }] });
      const res = await h.fetch('/v1/jobs', createInit('key-fbc'));
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.headers.get('retry-after')).toBe(retry_after === undefined ? null : String(retry_after));
      const body = (await res.json()) as { status: number; code: string; request_id: string };
      expect(body.status).toBe(status);
      expect(body.request_id).toBe(res.headers.get('x-request-id'));

      expect(creates()[0]).toMatchObject({
        status,
        effect: 'none',
        job_id: null,
        delivery: 'delivered',
        code: body.code,
        fault: { rule_id: 'fbc', type: 'fail_before_commit' },
        retry_after: retry_after ?? null,
      });
      expect(await allJobs()).toEqual([]);
      expect(await jobsByKey('key-fbc')).toEqual([]);
      // The key was not used: the same request now creates the job (not a replay).
      const jobId = await expectFreshCreate('key-fbc');
      expect((await allJobs()).map((j) => j.job_id)).toEqual([jobId]);
    },
  );

  it('rate_limit on create: 429 with Retry-After, not executed, key unused', async () => {
    await install({ seed: 4, rules: [{ id: 'rl', on: 'create', nth: 1, fault: { type: 'rate_limit', retry_after: 3 } }] });
    const res = await h.fetch('/v1/jobs', createInit('key-rl'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
    expect(creates()[0]).toMatchObject({
      status: 429,
      effect: 'none',
      job_id: null,
      retry_after: 3,
      fault: { rule_id: 'rl', type: 'rate_limit' },
    });
    expect(await allJobs()).toEqual([]);
    await expectFreshCreate('key-rl');
  });

  it('rate_limit on status: 429 with Retry-After, the read is not executed', async () => {
    const jobId = await expectFreshCreate('key-rl-status');
    await install({ seed: 5, rules: [{ id: 'rl-status', on: 'status', nth: 1, fault: { type: 'rate_limit', retry_after: 2 } }] });
    const limited = await h.fetch(`/v1/jobs/${jobId}`, getInit());
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    const ok = await h.fetch(`/v1/jobs/${jobId}`, getInit());
    expect(ok.status).toBe(200);
    const reads = requests(h.provider.journal.all()).filter((e) => e.route === 'status');
    expect(reads.map((e) => [e.status, e.effect, e.fault?.rule_id ?? null])).toEqual([
      [429, 'none', 'rl-status'],
      [200, 'read', null],
    ]);
  });

  it('error_after_commit: 500 problem, but the job is committed and the replay returns it', async () => {
    await install({ seed: 6, rules: [{ id: 'eac', on: 'create', nth: 1, fault: { type: 'error_after_commit' } }] });
    const res = await h.fetch('/v1/jobs', createInit('key-eac'));
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const body = (await res.json()) as { code: string; job_id?: string };
    expect(body.code).toBe('internal_error');
    expect(body.job_id).toBeUndefined();

    const [entry] = creates();
    expect(entry).toMatchObject({
      status: 500,
      effect: 'created',
      delivery: 'delivered',
      fault: { rule_id: 'eac', type: 'error_after_commit' },
    });
    expect((await allJobs()).map((j) => j.job_id)).toEqual([entry!.job_id]);
    await expectReplayOf('key-eac', entry!.job_id!);
    expect(await allJobs()).toHaveLength(1);
  });

  it('delay: the answer comes after the delay; a concurrent duplicate meanwhile gets 409 idempotency_request_in_progress', async () => {
    const ms = h.clock ? 5000 : 800;
    await install({ seed: 7, rules: [{ id: 'slow', on: 'create', nth: 1, fault: { type: 'delay', ms } }] });
    const first = track(h.fetch('/v1/jobs', createInit('key-delay')));
    const scope = { tenant: 'acme', subject: 'agent-1', scope: 'POST /v1/jobs', key: 'key-delay' };
    if (h.clock) await settle();
    else await waitFor(() => h.provider.core.idempotency.lookup(scope, Date.now())?.state === 'in_flight', 5000);
    expect(first.settled()).toBe(false);

    const dup = await h.fetch('/v1/jobs', createInit('key-delay'));
    expect(dup.status).toBe(409);
    expect(((await dup.json()) as { code: string }).code).toBe('idempotency_request_in_progress');
    expect(dup.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(first.settled()).toBe(false);

    if (h.clock) {
      await h.clock.advance(ms - 1);
      expect(first.settled()).toBe(false);
      await h.clock.advance(1);
      expect(first.settled()).toBe(true);
    }
    const res = await first.promise;
    expect(res.status).toBe(202);
    const jobId = ((await res.json()) as { job_id: string }).job_id;

    const [dupEntry, firstEntry] = creates(); // the duplicate was answered first
    expect(dupEntry).toMatchObject({
      status: 409,
      effect: 'none',
      code: 'idempotency_request_in_progress',
      delivery: 'delivered',
      fault: null,
    });
    expect(firstEntry).toMatchObject({
      status: 202,
      effect: 'created',
      job_id: jobId,
      delivery: 'delayed',
      fault: { rule_id: 'slow', type: 'delay' },
    });
    expect(await allJobs()).toHaveLength(1);
    await expectReplayOf('key-delay', jobId);
  });

  it('delay: a client that hangs up while its create is held — the create still executes, journalled lost, not delivered', async () => {
    const ms = h.clock ? 5000 : 800;
    await install({ seed: 7, rules: [{ id: 'hold', on: 'create', nth: 1, fault: { type: 'delay', ms } }] });
    const gaveUp = new AbortController();
    const first = outcome(h.fetch('/v1/jobs', createInit('key-gone', {}, { signal: gaveUp.signal })));
    const scope = { tenant: 'acme', subject: 'agent-1', scope: 'POST /v1/jobs', key: 'key-gone' };
    if (h.clock) await settle();
    else await waitFor(() => h.provider.core.idempotency.lookup(scope, Date.now())?.state === 'in_flight', 5000);
    gaveUp.abort(new Error('client timeout'));
    if (h.clock) await h.clock.advance(ms);
    else await waitFor(() => creates().length === 1, 5000);
    await first;
    expect(creates()).toHaveLength(1);
    // The client hung up on the held answer: it learned so at its own timeout, as after a hang.
    expect(creates()[0]).toMatchObject({
      status: 202,
      effect: 'created',
      delivery: 'lost',
      lost_by: 'hang',
      fault: { rule_id: 'hold', type: 'delay' },
    });
    expect(await allJobs()).toHaveLength(1);
  });

  it('foreign_job_id on the replay after a lost first answer: the replay names a job the key never created', async () => {
    await install({
      seed: 11,
      rules: [
        { id: 'lose-first', on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } },
        { id: 'foreign', on: 'create', nth: 2, fault: { type: 'foreign_job_id' } },
      ],
    });
    const lost = await outcome(h.fetch('/v1/jobs', createInit('key-foreign')));
    expect(lost.ok).toBe(false);
    const replay = await h.fetch('/v1/jobs', createInit('key-foreign'));
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const claimed = ((await replay.json()) as { job_id: string }).job_id;
    expect(replay.headers.get('location')).toBe(`/v1/jobs/${claimed}`);

    const real = await jobsByKey('key-foreign');
    expect(real).toHaveLength(1);
    expect(claimed).not.toBe(real[0]);
    expect(claimed).toMatch(/^job_/);
    const unknown = await h.fetch(`/v1/jobs/${claimed}`, getInit());
    expect(unknown.status).toBe(404);

    const [first, second] = creates();
    expect(first).toMatchObject({ effect: 'created', delivery: 'lost', job_id: real[0], fault: { rule_id: 'lose-first' } });
    // The journal records what the client was told: the id served, not the key's own.
    expect(second).toMatchObject({
      effect: 'foreign_replay',
      delivery: 'delivered',
      job_id: claimed,
      fault: { rule_id: 'foreign', type: 'foreign_job_id' },
    });
    // The third ask replays the truth again.
    await expectReplayOf('key-foreign', real[0]!);
    expect(await allJobs()).toHaveLength(1);
  });
});
