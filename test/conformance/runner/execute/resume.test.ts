import { describe, expect, it } from 'vitest';
import type { RunDriver } from '../../../../src/conformance/runner/driver.js';
import { RunState } from '../../../../src/conformance/runner/execute/run-state.js';
import { nextWakeAt, resumeDue } from '../../../../src/conformance/runner/execute/steps.js';
import { getScenario } from '../../../../src/scenarios/index.js';

/** Just the clock and the resume of a driver: what resumeDue needs. */
function fakeDriver() {
  const d = { t: 1_000_000, resumed: [] as Array<{ worker: string; at: number }> };
  const driver = {
    now: () => d.t,
    resumeWorker: async (worker: string) => void d.resumed.push({ worker, at: d.t }),
  } as unknown as RunDriver;
  return { d, driver };
}

const acted = { event: 'worker_acted' as const, worker: 'worker-2', operation: 'op_1' };

describe('resumeDue on a condition', () => {
  it('waits past the minimum for the condition, then resumes at once', async () => {
    const { d, driver } = fakeDriver();
    const run = new RunState(getScenario('stale-lease')!, driver, {});
    run.resumes.push({ worker: 'worker-1', at: d.t + 1200, after: acted, by: d.t + 6000 });
    d.t += 1500;
    await resumeDue(run);
    expect(d.resumed).toEqual([]);
    expect(nextWakeAt(run)).toBe(d.t - 1500 + 6000);
    run.tracker.setKey('op_1', 'k');
    run.tracker.ingest({ ...entry('create', 'worker-1', 'k'), seq: 1, at: new Date(d.t - 1400).toISOString() });
    run.tracker.ingest({ ...entry('status', 'worker-2', null), seq: 2, at: new Date(d.t - 10).toISOString() });
    expect(nextWakeAt(run)).toBe(d.t - 10);
    await resumeDue(run);
    expect(d.resumed).toEqual([{ worker: 'worker-1', at: d.t }]);
    expect(run.harness.at(-1)).toMatchObject({ type: 'resume', worker_id: 'worker-1', at: new Date(d.t).toISOString() });
  });

  it('keeps the minimum when the condition came first, and resumes at the bound when it never comes', async () => {
    const { d, driver } = fakeDriver();
    const run = new RunState(getScenario('stale-lease')!, driver, {});
    const t0 = d.t;
    run.resumes.push({ worker: 'worker-1', at: t0 + 1200, after: acted, by: t0 + 6000 });
    run.resumes.push({ worker: 'worker-3', at: t0 + 1200, after: { ...acted, worker: 'worker-9' }, by: t0 + 6000 });
    run.tracker.setKey('op_1', 'k');
    run.tracker.ingest({ ...entry('create', 'worker-1', 'k'), seq: 1, at: new Date(t0 + 100).toISOString() });
    run.tracker.ingest({ ...entry('status', 'worker-2', null), seq: 2, at: new Date(t0 + 600).toISOString() });
    d.t = t0 + 1199;
    await resumeDue(run);
    expect(d.resumed).toEqual([]);
    d.t = t0 + 1200;
    await resumeDue(run);
    expect(d.resumed).toEqual([{ worker: 'worker-1', at: t0 + 1200 }]);
    d.t = t0 + 7000;
    await resumeDue(run);
    expect(d.resumed.at(-1)).toEqual({ worker: 'worker-3', at: t0 + 7000 });
    // The driver's own timer resumed it at the bound: that is when it ran again.
    expect(run.harness.at(-1)).toMatchObject({ type: 'resume', worker_id: 'worker-3', at: new Date(t0 + 6000).toISOString() });
  });
});

function entry(route: string, worker: string, key: string | null) {
  return {
    type: 'request' as const,
    received_at: new Date(0).toISOString(),
    request_id: 'r',
    method: 'GET',
    path: '/v1/jobs',
    route,
    tenant: 't',
    subject: 's',
    idempotency_key: key,
    trace_id: null,
    worker_id: worker,
    fingerprint: null,
    effect: route === 'create' ? ('created' as const) : ('read' as const),
    job_id: 'job_a',
    status: 200,
    code: null,
    delivery: 'delivered' as const,
    fault: null,
    job_state: 'running' as const,
    retry_after: null,
    client_ref: null,
  };
}
