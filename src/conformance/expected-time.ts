import type { Scenario } from '../scenarios/index.js';

/** What a run costs besides its job: submitting, a worker's start, its first poll, the final `show`. */
const BASE_MS = 1500;
/** A worker killed or started by the scenario: a process start and a lease to lapse or be taken. */
const WORKER_CHANGE_MS = 1000;
/** A fault the client retries past (a backoff). */
const RETRY_MS = 100;

/**
 * A rough guess of how long a scenario runs, for ordering only (longest first, so that lanes end together): the
 * job's own time (or the result deadline of a job that never ends; a cancel cuts it short), what the actions hold
 * the run up by, and what its faults add. It never decides a verdict or a time bound.
 */
export function expectedRunMs(s: Scenario): number {
  let ms = BASE_MS;
  for (const op of s.workload) {
    const b = s.behavior.by_kind?.[op.kind] ?? s.behavior.default;
    let job = b?.outcome === 'never' ? op.result_deadline_ms : (b?.duration_ms ?? 1000);
    for (const a of s.actions)
      if (a.type === 'cancel' && a.operation === op.operation_id) job = Math.min(job, (a.at_ms ?? 0) + a.delay_ms + a.cancel_deadline_ms);
    ms = Math.max(ms, BASE_MS + op.at_ms + job);
  }
  for (const a of s.actions) {
    if (a.type === 'pause_worker') ms += a.resume_after_ms;
    else if (a.type === 'restart_provider') ms += a.down_ms + WORKER_CHANGE_MS;
    else if (a.type === 'kill_worker' || a.type === 'start_worker') ms += WORKER_CHANGE_MS;
    // Two more submits, each a client process, and the changed job's own time.
    else if (a.type === 'submit_changed') ms += 2 * WORKER_CHANGE_MS;
  }
  for (const r of s.faults.rules) ms += r.fault.type === 'delay' ? r.fault.ms : RETRY_MS;
  return ms;
}

/** Positions of `scenarios`, the longest expected run first (ties keep catalog order). */
export function longestFirst(scenarios: readonly Scenario[]): number[] {
  const ms = scenarios.map(expectedRunMs);
  return scenarios.map((_, i) => i).sort((a, b) => ms[b]! - ms[a]! || a - b);
}
