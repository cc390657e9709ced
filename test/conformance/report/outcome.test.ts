import { describe, expect, it } from 'vitest';
import { runOutcome, type CaseVerdict } from '../../../src/conformance/outcome.js';
import { certified } from '../../../src/conformance/pipeline/certified.js';
import { runScenarioInProcess } from '../../../src/conformance/runner/run-scenario.js';
import type { InProcessClientFactory } from '../../../src/contract/client-protocol.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { getScenario, parseScenario } from '../../../src/scenarios/index.js';

/** A client that records operations and never talks to the provider: its workers return at once. */
const idle: InProcessClientFactory = (opts) => {
  const client = createReferenceClient(opts) as Awaited<ReturnType<typeof createReferenceClient>>;
  return Object.assign(Object.create(Object.getPrototypeOf(client)), client, { work: async () => undefined });
};

describe('case verdicts: pass / fail / not_exercised, and the one pass rule', () => {
  it('a client that never acted fails, with the reason', async () => {
    const run = await runScenarioInProcess(getScenario('foreign-job-id'), idle, { seed: 3 });
    expect(run.outcome.verdict).toBe('fail');
    expect(run.outcome.reason).toMatch(/never acted: no create reached the provider/);
    expect(run.outcome.reason).toMatch(/time bound/);
  });

  it("a fault the client's path never met, every invariant held, is not_exercised and names the fault", async () => {
    // The rule waits for a fifth create; a correct client sends one.
    const s = parseScenario({
      name: 'never-met',
      title: 'never met',
      what_happens: 'a fault on the fifth create',
      invariants: ['I10'],
      faults: { seed: 1, rules: [{ id: 'fifth-create', on: 'create', nth: 5, fault: { type: 'foreign_job_id' } }] },
      behavior: { default: { duration_ms: 500 } },
      workload: [{ operation_id: 'op_1', kind: 'report', input: { a: 1 }, create_deadline_ms: 3000, result_deadline_ms: 8000 }],
    });
    const run = await runScenarioInProcess(s, createReferenceClient, { seed: 3 });
    expect(run.verdict.ok).toBe(true);
    expect(run.outcome).toEqual({ verdict: 'not_exercised', reason: expect.stringContaining('fault fifth-create never fired') });
  });

  it('a correct run passes; a broken invariant fails whatever else', async () => {
    const run = await runScenarioInProcess(getScenario('cancel-after-end'), createReferenceClient, { seed: 3 });
    expect(run.outcome).toEqual({ verdict: 'pass', reason: null });
    // The scenario did what it exists for: the cancel reached the provider after the job ended.
    expect(run.evidence.journal.some((e) => e.type === 'request' && e.route === 'cancel' && e.code === 'job_terminal')).toBe(true);
  });

  it('cancel-after-end whose client learnt of the end first (no cancel sent) is not_exercised, not a pass', async () => {
    const run = await runScenarioInProcess(getScenario('cancel-after-end'), createReferenceClient, { seed: 3 });
    const journal = run.evidence.journal.filter((e) => !(e.type === 'request' && e.route === 'cancel'));
    const outcome = runOutcome(getScenario('cancel-after-end'), run.verdict, { ...run.evidence, journal }, false);
    expect(outcome.verdict).toBe('not_exercised');
    expect(outcome.reason).toMatch(/409 job_terminal not met/);
  });

  it('a client that declared webhooks but answers none is not_exercised on the webhook scenarios; one that listens passes', async () => {
    // Its workers take part in every exchange but the webhook receiver: every delivery fails at the connection.
    const deaf: InProcessClientFactory = async (opts) => {
      const client = await createReferenceClient(opts);
      return Object.assign(Object.create(Object.getPrototypeOf(client)), client, { handleWebhook: undefined });
    };
    for (const name of ['duplicate-webhook', 'out-of-order-webhooks', 'forged-webhook', 'one-shot-results']) {
      const unheard = await runScenarioInProcess(getScenario(name), deaf, { seed: 3 });
      expect(unheard.verdict.ok, name).toBe(true);
      expect(unheard.outcome.verdict, name).toBe('not_exercised');
      expect(unheard.outcome.reason, name).toMatch(/answered none of the \d+ webhook deliveries .*JOBPROOF_WEBHOOK_PORT/);
      const heard = await runScenarioInProcess(getScenario(name), createReferenceClient, { seed: 3 });
      expect(heard.outcome, name).toEqual({ verdict: 'pass', reason: null });
    }
    // Every delivery withheld by the plan: nothing was sent for the client to answer, so polling alone is judged.
    const dropped = await runScenarioInProcess(getScenario('dropped-webhooks'), deaf, { seed: 3 });
    expect(dropped.outcome).toEqual({ verdict: 'pass', reason: null });
  });

  it('certified: no case failed and at least one passed', () => {
    const of = (...vs: CaseVerdict[]) => vs.map((verdict) => ({ verdict }));
    expect(certified(of('pass', 'skipped', 'not_exercised'))).toBe(true);
    expect(certified(of('pass', 'fail'))).toBe(false);
    expect(certified(of('skipped', 'not_exercised'))).toBe(false);
    expect(certified(of('not_exercised', 'not_exercised'))).toBe(false);
    expect(certified([])).toBe(false);
  });
});
