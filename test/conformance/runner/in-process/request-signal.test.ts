import { describe, expect, it } from 'vitest';
import type { InProcessClientFactory } from '../../../../src/contract/client-protocol.js';
import { runScenarioInProcess } from '../../../../src/conformance/runner/run-scenario.js';
import { ReferenceClient } from '../../../../src/reference-client/client.js';
import { parseScenario } from '../../../../src/scenarios/schema.js';

/**
 * A client may hand fetch a Request (a middleware wrapping every call does) instead of a URL and init. Giving up on
 * it goes through the Request's own signal, and the provider must see that as it sees a URL caller give up: the
 * answer it was holding is journalled lost, not told — else the client's second fetch reads as fetching twice (I13).
 */
const scenario = parseScenario({
  name: 'held-results',
  title: 'Results held past the client’s timeout',
  what_happens: 'The first results fetch is held 6 s; the client gives up on it and fetches again.',
  invariants: ['I3', 'I13'],
  behavior: { default: { duration_ms: 200 } },
  faults: { seed: 1, rules: [{ id: 'hold-results', on: 'results', nth: 1, fault: { type: 'delay', ms: 6000 } }] },
  workload: [
    { operation_id: 'op_1', kind: 'report', input: { account: 'acct_1' }, at_ms: 0, create_deadline_ms: 3000, result_deadline_ms: 8000 },
  ],
  webhooks: true,
});

const plain: InProcessClientFactory = (opts) => new ReferenceClient(opts);
const requestObjects: InProcessClientFactory = (opts) =>
  new ReferenceClient({ ...opts, fetch: (input, init) => opts.fetch(new Request(input as RequestInfo, init)) });

describe('an in-process client that passes Request objects to fetch', () => {
  it.each([
    ['URL and init', plain],
    ['a Request', requestObjects],
  ] as const)('gives up on a held answer through its signal (%s): journalled lost, judged as one fetch', async (_label, factory) => {
    const run = await runScenarioInProcess(scenario, factory, { seed: 1 });
    const fetches = run.evidence.journal.filter((e) => e.type === 'request' && e.route === 'results');
    // In the order executed: the second fetch, then the held first one, whose answer its caller no longer reads.
    expect(fetches.map((e) => e.type === 'request' && e.delivery)).toEqual(['delivered', 'lost']);
    expect(run.verdict.invariants.filter((i) => i.status === 'broken').map((i) => i.id)).toEqual([]);
    expect(run.verdict.invariants.find((i) => i.id === 'I3')?.status).toBe('held');
  });
});
