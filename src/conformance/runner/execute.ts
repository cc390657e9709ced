import type { OperationRecord } from '../../contract/client-protocol.js';
import type { Scenario } from '../../scenarios/index.js';
import type { LiveEvidenceInput } from '../checker/evidence.js';
import { profileFacts } from '../dialect/profile-input.js';
import type { RunDriver } from './driver.js';
import { submitOperation } from './execute/actions.js';
import { RunState, stripAt, type ExecuteOptions } from './execute/run-state.js';
import { fireTriggered, nextWakeAt, noticeExits, resumeDue, settleWhenIdle, submitArrivals } from './execute/steps.js';

export type { ExecuteOptions } from './execute/run-state.js';

export interface ExecuteResult {
  evidence: LiveEvidenceInput;
  timedOut: boolean;
  durationMs: number;
  /** Set when the run ended early because no open operation's record could be read. */
  stopReason: string | null;
}

/** Submit the operations due at the start, then start the scenario's workers. */
async function start(run: RunState): Promise<void> {
  for (const op of run.s.workload.filter((o) => o.at_ms === 0)) await submitOperation(run, stripAt(op));
  for (let i = 1; i <= run.s.workers; i++) await run.startWorker(`worker-${i}`);
  run.seenLive = new Set(run.d.liveWorkers());
}

/** Turn after turn: take what is due, until every operation is final or the time bound passes. */
async function runUntilSettled(run: RunState): Promise<void> {
  for (;;) {
    if (run.awaitsEvent()) run.pumpJournal();
    noticeExits(run);
    const rel = run.d.now() - run.t0;
    await submitArrivals(run, rel);
    await resumeDue(run);
    await fireTriggered(run, rel);
    if (await settleWhenIdle(run)) return;
    if (run.d.now() > run.deadline) {
      // Only open operations make a cut-off the client's problem; a request still held at the provider is the plan's.
      const open = run.operations.some((op) => !run.finals.has(op)) || run.laterOps.length > 0;
      run.timedOut = open;
      run.log(
        open
          ? `  run cut off at its time bound; operations still open are judged as they stand`
          : `  run ended at its time bound with ${run.d.heldRequests()} request(s) still held at the provider`,
      );
      return;
    }
    await run.d.waitStep(nextWakeAt(run));
  }
}

/** Stop the workers and gather what the judge needs: the journal, the client's records, what the harness did. */
async function collectEvidence(run: RunState): Promise<LiveEvidenceInput> {
  const { d, opts } = run;
  await d.stopWorkers();
  run.pumpJournal();
  const records: OperationRecord[] = [];
  for (const op of run.operations) {
    // A final record read while no worker ran cannot have changed since.
    const rec = run.finals.get(op) ?? (await d.show(op));
    if (rec) records.push(rec);
  }
  return {
    scenario: run.s.name,
    dialect: opts.dialect ?? 'native',
    ...(opts.profile ? { profile: profileFacts(opts.profile.profile) } : {}),
    principal: d.principal,
    journal: d.journalSince(0),
    records,
    submissions: run.submissions,
    cancels: run.cancels,
    harness: run.harness,
    jobs: d.providerJobs(),
    options: { ...opts.tolerances, clock_tolerance_ms: (opts.tolerances?.clock_tolerance_ms ?? 50) + run.submitSpread },
  };
}

/**
 * Carry out one scenario through a driver: submit the workload, start the workers, fire each action when its
 * trigger is seen, keep a worker alive while work remains, then collect the evidence the judge needs.
 */
export async function executeScenario(s: Scenario, d: RunDriver, opts: ExecuteOptions = {}): Promise<ExecuteResult> {
  const run = new RunState(s, d, opts);
  await start(run);
  await runUntilSettled(run);
  const evidence = await collectEvidence(run);
  return { evidence, timedOut: run.timedOut, durationMs: d.now() - run.t0, stopReason: run.stopReason };
}
