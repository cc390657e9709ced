import { brief } from '../http.js';
import { createJob, expectProblem, expectStatus, fail, jobBody, needControl, needToken, sameBody, sleep, withFaults } from '../helpers.js';
import type { Check } from '../types.js';

export const createShape: Check = {
  name: 'create.shape',
  description: 'POST /v1/jobs answers 202 with job_id, state queued, status_url, created_at and Location: /v1/jobs/{id}',
  async run(ctx, ev) {
    const { id, answer: a } = await createJob(ctx, ctx.kinds.slow, 'shape');
    ev.push(`POST /v1/jobs → ${brief(a)} ${a.text.slice(0, 200)}`);
    const loc = a.headers.get('location');
    ev.push(`Location: ${loc}`);
    if (a.status === 202) {
      for (const f of ['job_id', 'state', 'status_url', 'created_at']) if (!(f in a.json)) fail(`202 body lacks \`${f}\``);
      if (a.json.state !== 'queued') fail(`202 body state is ${a.json.state}, not queued`);
      if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(a.json.created_at))
        fail(`created_at ${a.json.created_at} is not RFC 3339 UTC with milliseconds`);
    }
    if (!id.startsWith('job_')) fail(`job_id ${id} lacks the job_ prefix`);
    // Location is named for the 202 only; the synchronous 200 carries the whole job.
    if (a.status === 202 && loc !== `/v1/jobs/${id}` && !loc?.endsWith(`/v1/jobs/${id}`)) fail(`Location is ${loc}, not /v1/jobs/${id}`);
    if (!a.headers.get('x-request-id')?.startsWith('req_')) fail('no X-Request-ID: req_… on the answer');
    const r = await ctx.http.call('GET', `/v1/jobs/${id}`);
    expectStatus(r, 200, 'GET the created job');
    return `created ${id} with the documented shape and Location`;
  },
};

export const createReplay: Check = {
  name: 'create.replay',
  description: 'the same key and body again replays the first answer (same status, body, Location) with Idempotent-Replayed: true',
  async run(ctx, ev) {
    const key = ctx.key('replay');
    const body = jobBody(ctx, ctx.kinds.slow, { label: 'replay' });
    const a = await ctx.http.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body });
    const b = await ctx.http.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body });
    ev.push(`first → ${brief(a)} job ${a.json?.job_id}`, `again → ${brief(b)} job ${b.json?.job_id}`);
    expectStatus(a, [200, 202], 'first create');
    if (b.status !== a.status) fail(`the replay answered ${b.status}, the first ${a.status}`);
    if (b.json?.job_id !== a.json?.job_id)
      fail(`the replay names job ${b.json?.job_id}, the first ${a.json?.job_id}: a second job was created`);
    if (!sameBody(a, b)) fail('the replay body differs from the first answer');
    if (b.headers.get('location') !== a.headers.get('location')) fail('the replay Location differs');
    if (b.headers.get('idempotent-replayed') !== 'true')
      fail(`no Idempotent-Replayed: true on the replay (got ${b.headers.get('idempotent-replayed')})`);
    return 'the replay returned the first answer, marked Idempotent-Replayed';
  },
};

export const createChangedBody: Check = {
  name: 'create.changed-body-422',
  description: 'the same key with a different body is 422 idempotency_key_reused, and nothing is created',
  async run(ctx, ev) {
    const key = ctx.key('changed');
    const a = await ctx.http.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key },
      body: jobBody(ctx, ctx.kinds.slow, { n: 1 }),
    });
    expectStatus(a, [200, 202], 'first create');
    const b = await ctx.http.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key },
      body: jobBody(ctx, ctx.kinds.slow, { n: 2 }),
    });
    ev.push(`first → ${brief(a)}`, `changed body, same key → ${brief(b)}`);
    expectProblem(b, 422, 'idempotency_key_reused', 'changed body');
    return '422 idempotency_key_reused';
  },
};

export const createMissingKey: Check = {
  name: 'create.missing-key-400',
  description: 'a create without Idempotency-Key is 400 idempotency_key_missing',
  async run(ctx, ev) {
    const a = await ctx.http.call('POST', '/v1/jobs', { body: jobBody(ctx, ctx.kinds.slow) });
    ev.push(`no key → ${brief(a)}`);
    expectProblem(a, 400, 'idempotency_key_missing', 'create without a key');
    return '400 idempotency_key_missing';
  },
};

export const createInFlight: Check = {
  name: 'create.in-flight-409',
  description: 'the same key while the first request is still processed is 409 idempotency_request_in_progress with Retry-After',
  async run(ctx, ev) {
    needControl(ctx);
    const key = ctx.key('inflight');
    const body = jobBody(ctx, ctx.kinds.slow);
    return withFaults(ctx, [{ on: 'create', nth: 1, fault: { type: 'delay', ms: 1000 } }], async () => {
      const first = ctx.http.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body });
      await sleep(250);
      const b = await ctx.http.call('POST', '/v1/jobs', { headers: { 'idempotency-key': key }, body });
      const a = await first;
      ev.push(`first (delayed 1000 ms) → ${brief(a)}`, `same key 250 ms later → ${brief(b)} Retry-After: ${b.headers.get('retry-after')}`);
      expectStatus(a, [200, 202], 'the delayed first create');
      expectProblem(b, 409, 'idempotency_request_in_progress', 'duplicate while in flight');
      if (!b.headers.get('retry-after')) fail('409 idempotency_request_in_progress without Retry-After');
      return '409 idempotency_request_in_progress with Retry-After while the first was delayed';
    });
  },
};

export const keyScopedPerSubject: Check = {
  name: 'create.key-scope-per-subject',
  description: "another subject's use of the same key is a new request (a new job), never a replay or a 422",
  async run(ctx, ev) {
    const t2 = needToken(ctx.opts.token2, '--token-2');
    const key = ctx.key('scope');
    const a = await ctx.http.call('POST', '/v1/jobs', {
      headers: { 'idempotency-key': key },
      body: jobBody(ctx, ctx.kinds.slow, { who: 1 }),
    });
    const b = await ctx.http.call('POST', '/v1/jobs', {
      token: t2,
      headers: { 'idempotency-key': key },
      body: jobBody(ctx, ctx.kinds.slow, { who: 2 }),
    });
    ev.push(`--token, key ${key} → ${brief(a)} ${a.json?.job_id}`, `--token-2, same key, other body → ${brief(b)} ${b.json?.job_id}`);
    expectStatus(a, [200, 202], 'create as --token');
    expectStatus(b, [200, 202], 'create as --token-2 with the same key');
    if (b.headers.get('idempotent-replayed')) fail("--token-2's request was answered as a replay of --token's");
    if (b.json?.job_id === a.json?.job_id) fail('both subjects got the same job');
    return 'keys are scoped per subject';
  },
};
