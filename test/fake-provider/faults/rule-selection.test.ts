/**
 * Which requests a rule picks: `nth` (a number or a list, counted per route since the plan was installed), `times`,
 * `probability` with a seed, and the first matching rule winning. Driven in-process on a virtual clock against the
 * `list` route with `rate_limit`, which never executes anything, so every answer is 200 or the injected 429.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { uniform } from '../../../src/fake-provider/faults/decide.js';
import type { Provider } from '../../../src/fake-provider/index.js';
import type { FaultPlanInput } from '../../../src/contract/index.js';
import { controlInit, getInit, installFaults, requests, virtualProvider } from './helpers.js';

let provider: Provider | undefined;
afterEach(() => provider?.close());

async function fresh(plan: FaultPlanInput): Promise<Provider> {
  provider?.close();
  provider = virtualProvider().provider;
  await installFaults(provider, plan);
  return provider;
}

/** Send `n` list requests; return the 1-based positions whose answer was the injected fault. */
async function firedPositions(p: Provider, n: number, route: 'list' | 'status' = 'list'): Promise<number[]> {
  const fired: number[] = [];
  for (let i = 1; i <= n; i++) {
    const res = await p.fetch(route === 'list' ? '/v1/jobs' : '/v1/jobs/job_missing', getInit());
    if (res.status >= 429) fired.push(i);
    else expect(res.status).toBe(route === 'list' ? 200 : 404);
  }
  return fired;
}

const rateLimit = { type: 'rate_limit', retry_after: 1 } as const;

describe('rule selection', () => {
  it('nth as a number picks exactly that request on the route', async () => {
    const p = await fresh({ seed: 1, rules: [{ id: 'third', on: 'list', nth: 3, fault: rateLimit }] });
    expect(await firedPositions(p, 8)).toEqual([3]);
    const journal = requests(p.journal.all());
    expect(journal.map((e) => e.fault?.rule_id ?? null)).toEqual([null, null, 'third', null, null, null, null, null]);
  });

  it('nth as a list picks each listed request', async () => {
    const p = await fresh({ seed: 1, rules: [{ on: 'list', nth: [2, 4, 5], fault: rateLimit }] });
    expect(await firedPositions(p, 8)).toEqual([2, 4, 5]);
    // Without an id the rule is named by its position.
    expect(
      requests(p.journal.all())
        .filter((e) => e.fault)
        .map((e) => e.fault!.rule_id),
    ).toEqual(['rule-1', 'rule-1', 'rule-1']);
  });

  it('nth counts per route: requests on other routes do not move it', async () => {
    const p = await fresh({ seed: 1, rules: [{ id: 'list-2', on: 'list', nth: 2, fault: rateLimit }] });
    expect(await firedPositions(p, 1)).toEqual([]);
    expect(await firedPositions(p, 3, 'status')).toEqual([]);
    expect(await firedPositions(p, 2)).toEqual([1]); // the 2nd list request overall
  });

  it('nth counts from the installation of the plan: re-installing starts again from 1', async () => {
    const plan: FaultPlanInput = { seed: 1, rules: [{ on: 'list', nth: 2, fault: rateLimit }] };
    const p = await fresh(plan);
    expect(await firedPositions(p, 3)).toEqual([2]);
    await installFaults(p, plan);
    expect(await firedPositions(p, 3)).toEqual([2]);
  });

  it('times caps how often a rule fires', async () => {
    const p = await fresh({ seed: 1, rules: [{ id: 'twice', on: 'list', times: 2, fault: rateLimit }] });
    expect(await firedPositions(p, 6)).toEqual([1, 2]);
    const described = (await (await p.fetch('/_control/faults', controlInit('GET'))).json()) as {
      rules: Array<{ id: string; hits: number }>;
      counts: Record<string, number>;
    };
    expect(described.rules.map((r) => [r.id, r.hits])).toEqual([['twice', 2]]);
    expect(described.counts.list).toBe(6);
  });

  it('times with an nth list fires on the first listed requests only', async () => {
    const p = await fresh({ seed: 1, rules: [{ on: 'list', nth: [1, 3, 5, 7], times: 2, fault: rateLimit }] });
    expect(await firedPositions(p, 8)).toEqual([1, 3]);
  });

  it('the first matching rule wins; an exhausted rule lets the next one fire', async () => {
    const p = await fresh({
      seed: 1,
      rules: [
        { id: 'first', on: 'list', times: 1, fault: rateLimit },
        { id: 'second', on: 'list', nth: [1, 2], fault: { type: 'fail_before_commit', status: 503 } },
      ],
    });
    for (let i = 0; i < 3; i++) await p.fetch('/v1/jobs', getInit());
    expect(requests(p.journal.all()).map((e) => [e.status, e.fault?.rule_id ?? null])).toEqual([
      [429, 'first'],
      [503, 'second'],
      [200, null],
    ]);
  });

  it('probability with a seed: fires exactly where the seeded draw says, the same on every run', async () => {
    const plan = (seed: number): FaultPlanInput => ({ seed, rules: [{ id: 'p30', on: 'list', probability: 0.3, fault: rateLimit }] });
    const predicted = (seed: number) => Array.from({ length: 60 }, (_, i) => i + 1).filter((n) => uniform(seed, 0, n) < 0.3);

    const a = await firedPositions(await fresh(plan(42)), 60);
    expect(a).toEqual(predicted(42));
    expect(a.length).toBeGreaterThan(5);
    expect(a.length).toBeLessThan(35);
    const again = await firedPositions(await fresh(plan(42)), 60);
    expect(again).toEqual(a);
    const other = await firedPositions(await fresh(plan(43)), 60);
    expect(other).toEqual(predicted(43));
    expect(other).not.toEqual(a);
  });

  it('probability 0 never fires, probability 1 always fires', async () => {
    expect(await firedPositions(await fresh({ seed: 5, rules: [{ on: 'list', probability: 0, fault: rateLimit }] }), 20)).toEqual([]);
    expect(await firedPositions(await fresh({ seed: 5, rules: [{ on: 'list', probability: 1, fault: rateLimit }] }), 5)).toEqual([
      1, 2, 3, 4, 5,
    ]);
  });

  it('probability and times together: the first two seeded hits only', async () => {
    const p = await fresh({ seed: 9, rules: [{ on: 'list', probability: 0.5, times: 2, fault: rateLimit }] });
    const expected = Array.from({ length: 30 }, (_, i) => i + 1)
      .filter((n) => uniform(9, 0, n) < 0.5)
      .slice(0, 2);
    expect(await firedPositions(p, 30)).toEqual(expected);
  });
});
