import { describe, expect, it } from 'vitest';
import { runScenarioInProcess } from '../../../../src/conformance/runner/run-scenario.js';
import { createReferenceClient } from '../../../../src/reference-client/index.js';
import { parseScenario } from '../../../../src/scenarios/index.js';

/**
 * The rescue worker: with every worker gone and an operation open, the harness starts one — unless the scenario is
 * about to start one itself. A start that waits on what only a worker's requests make happen is not about to.
 */
const schedule = (secondKill: Record<string, unknown>) =>
  parseScenario({
    name: 'rescue',
    title: 'Only worker killed at once',
    what_happens: 'worker-1 is killed at 0 ms; a second kill (and the start after it) waits on something else.',
    invariants: ['I3', 'I12'],
    workload: [{ operation_id: 'op_1', kind: 'report', input: { account: 'acct_1' }, create_deadline_ms: 500, result_deadline_ms: 1000 }],
    lease_ms: 200,
    actions: [
      { type: 'kill_worker', id: 'kill-1', worker: 'worker-1', at_ms: 0 },
      { type: 'kill_worker', id: 'kill-2', worker: 'worker-1', ...secondKill },
      { type: 'start_worker', worker: 'worker-2', after: { event: 'action_done', action: 'kill-2' }, delay_ms: 1 },
    ],
    quiet_timeout_ms: 2000,
  });

describe('a rescue worker when the scenario will start none', () => {
  it('starts one when the start waits on a held request that no worker is left to send (the client then acts)', async () => {
    const run = await runScenarioInProcess(schedule({ after: { event: 'request_held' } }), createReferenceClient, { seed: 1 });
    expect(run.outcome.verdict, run.outcome.reason ?? '').toBe('pass');
    expect(run.evidence.journal.some((e) => e.type === 'request' && e.route === 'create')).toBe(true);
    expect(run.evidence.harness.some((h) => h.type === 'start' && /rescue/.test(String(h.worker_id)))).toBe(true);
  });

  it("waits for the scenario's own start when it chains on a clock-timed action", async () => {
    const run = await runScenarioInProcess(schedule({ at_ms: 300 }), createReferenceClient, { seed: 1 });
    expect(run.outcome.verdict, run.outcome.reason ?? '').toBe('pass');
    const starts = run.evidence.harness.filter((h) => h.type === 'start').map((h) => String(h.worker_id));
    expect(starts).toContain('worker-2');
    expect(starts.some((w) => /rescue/.test(w))).toBe(false);
  });
});
