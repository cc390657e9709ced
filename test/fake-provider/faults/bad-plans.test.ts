/**
 * `PUT /_control/faults` over real HTTP refuses bad plans with 400 `invalid_request`, names the offending field in
 * `errors[].path`, and leaves the installed plan as it was.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, serve, type RunningServer } from '../../../src/fake-provider/index.js';
import { controlInit } from './helpers.js';

const provider = createProvider();
let server: RunningServer;
beforeAll(async () => {
  server = await serve(provider, { port: 0 });
});
afterAll(async () => {
  await server.close();
  provider.close();
});

const GOOD = { seed: 3, rules: [{ id: 'keep-me', on: 'status', nth: 1, fault: { type: 'rate_limit', retry_after: 1 } }] };

beforeEach(async () => {
  const res = await fetch(`${server.url}/_control/faults`, controlInit('PUT', GOOD));
  expect(res.status).toBe(200);
});

interface Problem {
  status: number;
  code: string;
  errors?: Array<{ path: string; message: string }>;
}

async function put(body: unknown): Promise<{ status: number; contentType: string | null; problem: Problem }> {
  const res = await fetch(`${server.url}/_control/faults`, controlInit('PUT', body));
  return { status: res.status, contentType: res.headers.get('content-type'), problem: (await res.json()) as Problem };
}

const rule = (r: Record<string, unknown>) => ({ seed: 1, rules: [{ on: 'create', fault: { type: 'rate_limit' }, ...r }] });

const BAD: Array<{ what: string; plan: unknown; path: string }> = [
  { what: 'unknown fault type', plan: rule({ fault: { type: 'explode' } }), path: 'rules.0.fault.type' },
  { what: 'unknown fault type in the bare form', plan: rule({ fault: 'explode' }), path: 'rules.0.fault.type' },
  { what: 'nth: 0', plan: rule({ nth: 0 }), path: 'rules.0.nth' },
  { what: 'nth: -1', plan: rule({ nth: -1 }), path: 'rules.0.nth' },
  { what: 'nth list holding 0', plan: rule({ nth: [1, 0] }), path: 'rules.0.nth.1' },
  { what: 'nth: 1.5', plan: rule({ nth: 1.5 }), path: 'rules.0.nth' },
  { what: 'probability: 1.5', plan: rule({ probability: 1.5 }), path: 'rules.0.probability' },
  { what: 'probability: -0.1', plan: rule({ probability: -0.1 }), path: 'rules.0.probability' },
  { what: 'times: 0', plan: rule({ times: 0 }), path: 'rules.0.times' },
  { what: 'webhook fault (drop) on a request route', plan: rule({ fault: { type: 'drop' } }), path: 'rules.0.fault.type' },
  {
    what: 'webhook fault (duplicate) on status',
    plan: rule({ on: 'status', fault: { type: 'duplicate', copies: 1 } }),
    path: 'rules.0.fault.type',
  },
  { what: 'webhook fault (reorder) on cancel', plan: rule({ on: 'cancel', fault: 'reorder' }), path: 'rules.0.fault.type' },
  {
    what: 'request fault on the webhook route',
    plan: rule({ on: 'webhook', fault: { type: 'lose_response' } }),
    path: 'rules.0.fault.type',
  },
  { what: 'foreign_job_id on status', plan: rule({ on: 'status', fault: { type: 'foreign_job_id' } }), path: 'rules.0.on' },
  { what: 'foreign_job_id on results', plan: rule({ on: 'results', fault: 'foreign_job_id' }), path: 'rules.0.on' },
  { what: 'unknown route', plan: rule({ on: 'everything' }), path: 'rules.0.on' },
  {
    what: 'fail_before_commit with status 404',
    plan: rule({ fault: { type: 'fail_before_commit', status: 404 } }),
    path: 'rules.0.fault.status',
  },
  {
    what: 'lose_response with an unknown mode',
    plan: rule({ fault: { type: 'lose_response', mode: 'drip' } }),
    path: 'rules.0.fault.mode',
  },
  { what: 'delay without ms', plan: rule({ fault: { type: 'delay' } }), path: 'rules.0.fault.ms' },
  { what: 'negative retry_after', plan: rule({ fault: { type: 'rate_limit', retry_after: -1 } }), path: 'rules.0.fault.retry_after' },
  { what: 'unknown field on a rule', plan: rule({ every: 2 }), path: 'rules.0' },
  {
    what: 'a bad second rule',
    plan: {
      seed: 1,
      rules: [
        { on: 'create', fault: 'rate_limit' },
        { on: 'list', nth: 0, fault: 'rate_limit' },
      ],
    },
    path: 'rules.1.nth',
  },
  { what: 'non-integer seed', plan: { seed: 1.5, rules: [] }, path: 'seed' },
];

describe('PUT /_control/faults refuses bad plans', () => {
  it.each(BAD)('$what → 400 invalid_request at $path', async ({ plan, path }) => {
    const { status, contentType, problem } = await put(plan);
    expect(status).toBe(400);
    expect(contentType).toContain('application/problem+json');
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors?.map((e) => e.path)).toContain(path);
    for (const e of problem.errors ?? []) expect(e.message).toEqual(expect.any(String));

    // The plan in force is unchanged.
    const shown = (await (await fetch(`${server.url}/_control/faults`, controlInit('GET'))).json()) as {
      seed: number;
      rules: Array<{ id: string }>;
    };
    expect(shown.seed).toBe(3);
    expect(shown.rules.map((r) => r.id)).toEqual(['keep-me']);
  });

  it('malformed JSON → 400 invalid_json', async () => {
    const res = await fetch(`${server.url}/_control/faults`, controlInit('PUT', '{"rules": ['));
    expect(res.status).toBe(400);
    expect(((await res.json()) as Problem).code).toBe('invalid_json');
  });

  it('without the control token → 401', async () => {
    const res = await fetch(`${server.url}/_control/faults`, {
      method: 'PUT',
      headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
      body: JSON.stringify(GOOD),
    });
    expect(res.status).toBe(401);
  });

  it('a good plan with defaults is accepted and shown with hit counts', async () => {
    const res = await fetch(
      `${server.url}/_control/faults`,
      controlInit('PUT', {
        rules: [
          { on: 'webhook', fault: 'duplicate' },
          { on: 'create', nth: [1, 2], fault: 'lose_response' },
        ],
      }),
    );
    expect(res.status).toBe(200);
    const shown = (await res.json()) as { seed: number; rules: Array<Record<string, unknown>> };
    expect(shown.seed).toBe(0);
    expect(shown.rules).toEqual([
      { on: 'webhook', fault: { type: 'duplicate', copies: 1 }, id: 'rule-1', hits: 0 },
      { on: 'create', nth: [1, 2], fault: { type: 'lose_response', mode: 'reset' }, id: 'rule-2', hits: 0 },
    ]);
  });
});
