/**
 * Property: idempotent create under random interleavings of creates over a few keys, bodies and principals, some of
 * them concurrent and held in flight by a delay fault. In-process (provider.fetch) on a virtual clock.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';
import type { RequestEntry } from '../../../src/contract/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { makeCall, type CallResult } from '../../helpers/provider-server.js';

const RUNS = process.env.JOBPROOF_LONG ? 1000 : 100;
const TOKENS = ['dev-token', 'dev-token-2', 'other-tenant-token'] as const;
const KEYS = ['key-a', 'key-b', 'key-c'] as const;
/** Bodies 0–2 are valid (2 is a sync job answered 200); 3 is refused with 400 before the key is looked at. */
const BODIES = [
  { kind: 'report', input: { n: 0 } },
  { kind: 'report', input: { n: 1 }, client_ref: 'op_1' },
  { kind: 'quick', input: {} },
  { kind: 'NOT VALID', input: {} },
] as const;
const INVALID_BODY = 3;

interface Req {
  token: number;
  key: number;
  body: number;
  /** Send the key as a Structured Field string ("key-a") rather than bare. */
  sf: boolean;
}

const reqArb: fc.Arbitrary<Req> = fc.record({
  token: fc.nat({ max: TOKENS.length - 1 }),
  key: fc.nat({ max: KEYS.length - 1 }),
  body: fc.oneof(
    { weight: 6, arbitrary: fc.nat({ max: 1 }) },
    { weight: 2, arbitrary: fc.constant(2) },
    { weight: 1, arbitrary: fc.constant(INVALID_BODY) },
  ),
  sf: fc.boolean(),
});

const scheduleArb = fc.record({
  /** Batches run one after another; the requests of a batch are fired together. */
  batches: fc.array(fc.array(reqArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
  seed: fc.integer(),
  delayProbability: fc.constantFrom(0, 0.3, 0.7),
});

interface Answer {
  req: Req;
  batch: number;
  res: CallResult;
}

async function runSchedule(provider: Provider, clock: VirtualClock, batches: Req[][]): Promise<Answer[]> {
  const call = makeCall('', provider.fetch, null);
  const answers: Answer[] = [];
  for (let b = 0; b < batches.length; b++) {
    const pending = batches[b]!.map(async (req) => {
      const key = req.sf ? `"${KEYS[req.key]}"` : KEYS[req.key]!;
      const res = await call('POST', '/v1/jobs', { token: TOKENS[req.token], headers: { 'idempotency-key': key }, body: BODIES[req.body] });
      return { req, batch: b, res };
    });
    let done = false;
    const all = Promise.all(pending).finally(() => (done = true));
    // Delayed requests sleep on the virtual clock: move it until every request of the batch has answered.
    for (let i = 0; !done && i < 200; i++) await clock.advance(25);
    answers.push(...(await all));
  }
  return answers;
}

function check(provider: Provider, answers: Answer[], controlJobs: Array<{ job_id: string; tenant: string; subject: string }>): void {
  const principal = (token: number) => provider.tokens.tokens[TOKENS[token]!]!;
  const groupOf = (req: Req) => `${principal(req.token).tenant}/${principal(req.token).subject}/${KEYS[req.key]}`;
  const requests = provider.journal.all().filter((e): e is RequestEntry => e.type === 'request');
  const byRequestId = new Map(requests.map((e) => [e.request_id, e]));
  const entryOf = (a: Answer) => {
    const e = byRequestId.get(a.res.headers.get('x-request-id')!);
    expect(e, 'every answer has its journal entry').toBeDefined();
    return e!;
  };

  // Jobs created: exactly one per (tenant, subject, key) that saw at least one valid request.
  const expectedGroups = new Set(answers.filter((a) => a.req.body !== INVALID_BODY).map((a) => groupOf(a.req)));
  const created = answers.filter((a) => entryOf(a).effect === 'created');
  const createdGroups = created.map((a) => groupOf(a.req));
  expect(new Set(createdGroups).size, 'one creation per group').toBe(createdGroups.length);
  expect(new Set(createdGroups)).toEqual(expectedGroups);
  expect(requests.filter((e) => e.effect === 'created')).toHaveLength(expectedGroups.size);
  expect(controlJobs).toHaveLength(expectedGroups.size);

  const winnerOf = new Map(created.map((a) => [groupOf(a.req), a]));
  const jobsById = new Map(controlJobs.map((j) => [j.job_id, j]));
  for (const a of answers) {
    const { req, res } = a;
    if (req.body === INVALID_BODY) {
      expect(res.status).toBe(400);
      expect(res.json.code).toBe('invalid_request');
      continue;
    }
    const winner = winnerOf.get(groupOf(req))!;
    if (a === winner) {
      expect(res.status).toBe(req.body === 2 ? 200 : 202);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    } else if (req.body !== winner.req.body) {
      expect(res.status).toBe(422);
      expect(res.json.code).toBe('idempotency_key_reused');
      expect(entryOf(a).effect).toBe('none');
    } else if (res.status === 409) {
      expect(res.json.code).toBe('idempotency_request_in_progress');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      // Only a request concurrent with the first one (same batch) can meet it in flight. (Without a delay fault the
      // window is the few ticks between reserving the key and committing the job, and a concurrent twin can hit it.)
      expect(a.batch).toBe(winner.batch);
    } else {
      // A replay: the first answer, byte for byte.
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(res.status).toBe(winner.res.status);
      expect(res.text).toBe(winner.res.text);
      expect(res.headers.get('location')).toBe(winner.res.headers.get('location'));
      expect(entryOf(a)).toMatchObject({ effect: 'replayed', job_id: winner.res.json.job_id });
    }
    // Nothing is shared across tenants or subjects: every job handed out belongs to the caller's own scope.
    if (res.status === 200 || res.status === 202) {
      const job = jobsById.get(res.json.job_id)!;
      expect(job).toBeDefined();
      expect({ tenant: job.tenant, subject: job.subject }).toEqual({
        tenant: principal(req.token).tenant,
        subject: principal(req.token).subject,
      });
      expect(res.headers.get('location')).toBe(`/v1/jobs/${res.json.job_id}`);
    }
  }
}

describe('idempotent create (property)', () => {
  it(
    'creates one job per (tenant, subject, key), replays byte for byte, refuses mismatches, shares nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(scheduleArb, async ({ batches, seed, delayProbability }) => {
          const clock = new VirtualClock();
          const provider = createProvider({
            clock,
            behavior: { default: { duration_ms: 3_600_000 }, by_kind: { quick: { mode: 'sync' } } },
            faults: {
              seed,
              rules: delayProbability > 0 ? [{ on: 'create', probability: delayProbability, fault: { type: 'delay', ms: 100 } }] : [],
            },
          });
          try {
            const answers = await runSchedule(provider, clock, batches);
            const jobs = (await makeCall('', provider.fetch, 'control-token')('GET', '/_control/jobs')).json.data;
            check(provider, answers, jobs);
            // Per-subject lookup agrees: each principal finds exactly its own job for each key it used validly.
            const call = makeCall('', provider.fetch, null);
            for (let t = 0; t < TOKENS.length; t++) {
              for (let k = 0; k < KEYS.length; k++) {
                const used = answers.some((a) => a.req.token === t && a.req.key === k && a.req.body !== INVALID_BODY);
                const found = await call('GET', `/v1/jobs?idempotency_key=${KEYS[k]}`, { token: TOKENS[t] });
                expect(found.json.data).toHaveLength(used ? 1 : 0);
              }
            }
          } finally {
            provider.close();
          }
        }),
        { numRuns: RUNS },
      );
    },
    process.env.JOBPROOF_LONG ? 900_000 : 30_000,
  );

  it('meets 409 in flight at least once across a fixed concurrent schedule (the property is not vacuous)', async () => {
    const clock = new VirtualClock();
    const provider = createProvider({ clock, faults: { rules: [{ on: 'create', nth: 1, fault: { type: 'delay', ms: 100 } }] } });
    try {
      const req = { token: 0, key: 0, body: 0, sf: false };
      const answers = await runSchedule(provider, clock, [[req, { ...req, sf: true }, { ...req, body: 1 }]]);
      expect(answers.map((a) => a.res.status).sort()).toEqual([202, 409, 422]);
      check(provider, answers, (await makeCall('', provider.fetch, 'control-token')('GET', '/_control/jobs')).json.data);
    } finally {
      provider.close();
    }
  });
});
