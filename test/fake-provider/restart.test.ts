/**
 * The provider survives a restart on the same SQLite file: in-process (close() and reopen), and as a real child
 * process killed with SIGKILL mid-job.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider, serve } from '../../src/fake-provider/index.js';
import { VirtualClock } from '../../src/lib/clock.js';
import { makeCall, newKey, waitFor } from '../helpers/provider-server.js';
import { ensureBuilt, startCli, type CliProvider } from './cli-provider.js';

const sha256 = (s: string, enc: 'hex' | 'base64') => createHash('sha256').update(s).digest(enc);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobproof-restart-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('restart in-process on the same file', () => {
  it('a job created before close() finishes after reopen; results, journal and keys survive', async () => {
    const db = join(dir, 'inproc.db');
    const p1 = createProvider({ db, behavior: { default: { duration_ms: 800, items: 5 } } });
    const s1 = await serve(p1, { port: 0 });
    const call1 = makeCall(s1.url);
    const key = newKey('restart');
    const created = await call1('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key, 'x-trace-id': 'tr_before' },
      body: { kind: 'report', input: { a: 1 } },
    });
    expect(created.status).toBe(202);
    const jobId = created.json.job_id as string;
    await waitFor(async () => (await call1('GET', `/v1/jobs/${jobId}`)).json.state === 'running');
    const journalBefore = p1.journal.all();
    await s1.close();
    p1.close();

    const p2 = createProvider({ db });
    const s2 = await serve(p2, { port: 0 });
    try {
      const call2 = makeCall(s2.url);
      const done = await waitFor(async () => {
        const j = (await call2('GET', `/v1/jobs/${jobId}`)).json;
        return j.state === 'succeeded' ? j : null;
      });
      expect(done).toMatchObject({ job_id: jobId, trace_id: 'tr_before', progress: { completed: 5, total: 5 } });
      const results = await call2('GET', `/v1/jobs/${jobId}/results`);
      expect(results.status).toBe(200);
      expect(sha256(results.text, 'hex')).toBe(done.result.sha256);
      expect(results.headers.get('content-digest')).toBe(`sha-256=:${sha256(results.text, 'base64')}:`);
      // The journal carried on: everything from before, then the rest, with one 'succeeded' transition.
      const journalAfter = p2.journal.all();
      expect(journalAfter.slice(0, journalBefore.length)).toEqual(journalBefore);
      const transitions = journalAfter
        .filter((e) => e.type === 'transition' && e.job_id === jobId)
        .map((e) => e.type === 'transition' && e.to);
      expect(transitions).toEqual(['queued', 'running', 'succeeded']);
      // The key survived: a replay replays, a different body is refused.
      const replay = await call2('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: { kind: 'report', input: { a: 1 } } });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(created.text);
      expect(replay.headers.get('location')).toBe(created.headers.get('location'));
      expect(
        (await call2('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body: { kind: 'report', input: { a: 2 } } })).status,
      ).toBe(422);
    } finally {
      await s2.close();
      p2.close();
    }
  });

  it('jobs that fell due while the provider was down move on when it reopens (virtual clock)', async () => {
    const db = join(dir, 'virtual.db');
    const clock = new VirtualClock();
    const p1 = createProvider({ db, clock, behavior: { default: { duration_ms: 10_000 }, by_kind: { slow: { duration_ms: 60_000 } } } });
    const call1 = makeCall('', p1.fetch);
    const post = (call: typeof call1, kind: string) =>
      call('POST', '/v1/jobs', { headers: { 'idempotency-key': `vk-${kind}` }, body: { kind, input: {} } });
    const quick = (await post(call1, 'report')).json.job_id;
    const slow = (await post(call1, 'slow')).json.job_id;
    await clock.advance(3_000);
    p1.close();
    await clock.advance(20_000); // Down for 20 s: `quick` was due at 10 s.

    const p2 = createProvider({ db, clock });
    try {
      const call2 = makeCall('', p2.fetch);
      const transitions = p2.journal.all().filter((e) => e.type === 'transition' && e.job_id === quick);
      expect(transitions.at(-1)).toMatchObject({
        to: 'succeeded',
        at: new Date(Date.parse('2026-01-01T00:00:00.000Z') + 10_000).toISOString(),
      });
      expect((await call2('GET', `/v1/jobs/${slow}`)).json.state).toBe('running');
      // The behaviour stored before the restart still applies to new jobs.
      const fresh = (await post(call2, 'slow2')).json.job_id;
      await clock.advance(10_000);
      expect((await call2('GET', `/v1/jobs/${fresh}`)).json.state).toBe('succeeded');
      await clock.advance(40_000);
      expect((await call2('GET', `/v1/jobs/${slow}`)).json.state).toBe('succeeded');
      expect((await post(call2, 'report')).headers.get('idempotent-replayed')).toBe('true');
    } finally {
      p2.close();
    }
  });
});

describe('close() while a request is executing', () => {
  it('a create whose job is made when close() comes is journalled with it, as a lost answer; its key replays the job', async () => {
    const db = join(dir, 'mid-create.db');
    const clock = new VirtualClock();
    const p1 = createProvider({ db, clock });
    const body = JSON.stringify({ kind: 'report', input: {}, client_ref: 'op_mid' });
    const headers = { authorization: 'Bearer dev-token', 'idempotency-key': 'mid-create', 'content-type': 'application/json' };
    const answer = p1.fetch('/v1/jobs', { method: 'POST', headers, body }).catch((e: unknown) => e);
    // The job exists inside the turn's open transaction; its request entry is still a few microtasks away.
    while (p1.jobs().length === 0) await Promise.resolve();
    p1.close();
    expect(await answer).toBeInstanceOf(TypeError);

    const p2 = createProvider({ db, clock });
    try {
      const jobId = p2.jobs()[0]!.job_id;
      const create = p2.journal.all().find((e) => e.type === 'request' && e.route === 'create');
      expect(create).toMatchObject({
        effect: 'created',
        job_id: jobId,
        client_ref: 'op_mid',
        delivery: 'lost',
        idempotency_key: 'mid-create',
      });
      const replay = await p2.fetch('/v1/jobs', { method: 'POST', headers, body });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(((await replay.json()) as { job_id: string }).job_id).toBe(jobId);
    } finally {
      p2.close();
    }
  });
});

describe('restart of a real `jobproof serve` process killed with SIGKILL', () => {
  const children: CliProvider[] = [];
  beforeAll(() => ensureBuilt(), 120_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
  });

  it('the job finishes after the restart, results are served, journal and keys survive, in-flight keys are freed', async () => {
    const db = join(dir, 'cli.db');
    const first = await startCli(db);
    children.push(first);
    const call = makeCall(first.url);
    const control = makeCall(first.url, fetch, 'control-token');
    expect(
      (await control('PUT', '/_control/behavior', { body: { default: { duration_ms: 1_500, items: 7, items_failed: 1 } } })).status,
    ).toBe(200);
    const key = newKey('cli');
    const body = { kind: 'report', input: { account: 'acct_1' }, client_ref: 'op_cli' };
    const created = await call('POST', '/v1/jobs', { headers: { 'idempotency-key': key, 'x-worker-id': 'w-cli' }, body });
    expect(created.status).toBe(202);
    const jobId = created.json.job_id as string;
    const createRequestId = created.headers.get('x-request-id');
    await waitFor(async () => (await call('GET', `/v1/jobs/${jobId}`)).json.state === 'running');

    // A create held in flight by a delay fault when the process dies: it never executed, so its key is free again.
    await control('PUT', '/_control/faults', { body: { rules: [{ on: 'create', fault: { type: 'delay', ms: 60_000 } }] } });
    const inflightKey = newKey('inflight');
    const inflight = call('POST', '/v1/jobs', { headers: { 'idempotency-key': inflightKey }, body }).catch((e: unknown) => e);
    await waitFor(
      async () =>
        (await call('POST', '/v1/jobs', { token: 'dev-token', headers: { 'idempotency-key': inflightKey }, body })).status === 409,
    );

    first.proc.kill('SIGKILL');
    await first.exited;
    expect(await inflight).toBeInstanceOf(Error);

    const second = await startCli(db);
    children.push(second);
    const call2 = makeCall(second.url);
    const control2 = makeCall(second.url, fetch, 'control-token');
    const done = await waitFor(async () => {
      const j = (await call2('GET', `/v1/jobs/${jobId}`)).json;
      return j.state === 'succeeded' ? j : null;
    });
    expect(done).toMatchObject({ client_ref: 'op_cli', result: { items_total: 7, items_failed: 1 } });
    const results = await call2('GET', `/v1/jobs/${jobId}/results`);
    expect(results.status).toBe(200);
    expect(sha256(results.text, 'hex')).toBe(done.result.sha256);
    expect(results.headers.get('x-items-failed')).toBe('1');

    const replay = await call2('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(created.text);

    const journal = (await control2('GET', '/_control/journal')).json.data as Array<Record<string, unknown>>;
    expect(journal.find((e) => e.request_id === createRequestId)).toMatchObject({ effect: 'created', worker_id: 'w-cli', job_id: jobId });
    expect(journal.filter((e) => e.type === 'transition' && e.job_id === jobId).map((e) => e.to)).toEqual([
      'queued',
      'running',
      'succeeded',
    ]);

    // The fault plan survived too; clear it, then the in-flight key is free: a new job, not a 409 and not a replay.
    expect((await control2('GET', '/_control/faults')).json.rules).toHaveLength(1);
    await control2('DELETE', '/_control/faults');
    const retried = await call2('POST', '/v1/jobs', { headers: { 'idempotency-key': inflightKey }, body });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});
