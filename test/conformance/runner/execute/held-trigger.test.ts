import { describe, expect, it } from 'vitest';
import type { RunDriver } from '../../../../src/conformance/runner/driver.js';
import { RunState } from '../../../../src/conformance/runner/execute/run-state.js';
import { fireTriggered, nextWakeAt } from '../../../../src/conformance/runner/execute/steps.js';
import { runScenarioInProcess } from '../../../../src/conformance/runner/run-scenario.js';
import { createReferenceClient } from '../../../../src/reference-client/index.js';
import { getScenario, parseScenario } from '../../../../src/scenarios/index.js';

/** The clock, the provider's held count, a kill and a start: what fireTriggered needs for create-in-flight's actions. */
function fakeDriver() {
  const d = { t: 1_000_000, held: 0, heldBy: [] as string[], killed: [] as Array<{ worker: string; at: number }> };
  const driver = {
    now: () => d.t,
    heldRequests: () => d.held,
    heldBy: () => d.heldBy,
    show: async () => null,
    killWorker: async (worker: string) => void d.killed.push({ worker, at: d.t }),
    // worker-2 starts once the kill is done.
    startWorker: async () => {},
  } as unknown as RunDriver;
  return { d, driver };
}

describe('request_held: an action set by when the provider holds a request', () => {
  it('waits for the held count, however late it comes, then fires after its delay', async () => {
    const { d, driver } = fakeDriver();
    const run = new RunState(getScenario('create-in-flight')!, driver, {});
    const t0 = d.t;
    // A slow start: nothing held for 3 s (past the fixed 1.2 s the kill used to have).
    for (const step of [500, 1500, 3000]) {
      d.t = t0 + step;
      await fireTriggered(run, step);
      expect(d.killed).toEqual([]);
    }
    d.held = 1;
    await fireTriggered(run, 3000);
    expect(d.killed).toEqual([]);
    expect(nextWakeAt(run)).toBe(t0 + 3000 + 200);
    d.t = t0 + 3200;
    await fireTriggered(run, 3200);
    expect(d.killed).toEqual([{ worker: 'worker-1', at: t0 + 3200 }]);
  });

  it("with a worker named, waits for a request of that worker to be held, not anyone's", async () => {
    const { d, driver } = fakeDriver();
    const s = parseScenario({
      name: 'held-by',
      title: 'held by worker-2',
      what_happens: 'worker-2 is killed 100 ms after a request of its own is held',
      invariants: ['I1'],
      workers: 2,
      workload: [{ operation_id: 'op_1', kind: 'report', input: { a: 1 }, create_deadline_ms: 3000, result_deadline_ms: 8000 }],
      actions: [{ type: 'kill_worker', id: 'k', worker: 'worker-2', after: { event: 'request_held', worker: 'worker-2' }, delay_ms: 100 }],
    });
    const run = new RunState(s, driver, {});
    const t0 = d.t;
    d.held = 1;
    d.heldBy = ['worker-1'];
    d.t = t0 + 500;
    await fireTriggered(run, 500);
    expect(nextWakeAt(run)).not.toBe(t0 + 600);
    d.held = 2;
    d.heldBy = ['worker-1', 'worker-2'];
    d.t = t0 + 800;
    await fireTriggered(run, 800);
    expect(nextWakeAt(run)).toBe(t0 + 900);
    d.t = t0 + 900;
    await fireTriggered(run, 900);
    expect(d.killed).toEqual([{ worker: 'worker-2', at: t0 + 900 }]);
  });

  it('create-in-flight in process: worker-1 is killed 200 ms into the hold of its create, and the client passes', async () => {
    const run = await runScenarioInProcess(getScenario('create-in-flight')!, createReferenceClient, { seed: 1 });
    // The journal is in order of execution, and a held create executes when its hold ends: the first create sent is
    // the one received first (worker-2 replays the key while worker-1's is still held).
    const creates = run.evidence.journal.filter((e) => e.type === 'request' && e.route === 'create') as Array<{
      received_at: string;
      worker_id: string | null;
    }>;
    const first = [...creates].sort((a, b) => Date.parse(a.received_at) - Date.parse(b.received_at))[0];
    const kill = run.evidence.harness.find((h) => h.type === 'kill');
    expect(first?.worker_id).toBe('worker-1');
    const sinceHeld = Date.parse(kill!.at) - Date.parse(first!.received_at);
    expect(sinceHeld).toBeGreaterThanOrEqual(200);
    expect(sinceHeld).toBeLessThan(2500);
    expect(run.outcome.verdict, run.outcome.reason ?? '').toBe('pass');
  });
});
