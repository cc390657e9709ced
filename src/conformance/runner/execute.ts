import { isoTime } from '../../lib/clock.js';
import { isFinalState, type OperationRecord, type SubmitInput } from '../../contract/client-protocol.js';
import type { HarnessAction, Scenario } from '../../scenarios/index.js';
import type { CancelIntent, HarnessEvent, RunEvidenceInput, Submission } from '../checker/evidence.js';
import type { RunDriver } from './driver.js';
import { EventTracker } from './triggers.js';

export interface ExecuteOptions {
  /** Extra run time past the latest deadline before the run is cut off and judged as it stands. */
  marginMs?: number;
  /** Fresh workers the harness may start when none is left while operations are still open. */
  maxRescueWorkers?: number;
  /** Judge tolerances for this kind of run (real processes on a loaded machine need more slack than a virtual clock). */
  tolerances?: { deadline_grace_ms?: number; retry_after_tolerance_ms?: number; clock_tolerance_ms?: number };
  /** Called on notable steps (progress lines for people). */
  log?: (line: string) => void;
}

export interface ExecuteResult {
  evidence: RunEvidenceInput;
  timedOut: boolean;
  durationMs: number;
}

interface PendingAction {
  action: HarnessAction;
  index: number;
  triggeredAt?: number;
}

function stripAt(op: Scenario['workload'][number]): SubmitInput {
  const { at_ms: _at, ...rest } = op;
  return rest;
}

/** The latest moment anything in the scenario may still legitimately happen, relative to the run start. */
function horizonMs(s: Scenario): number {
  let h = 0;
  for (const op of s.workload) h = Math.max(h, op.at_ms + op.create_deadline_ms + op.result_deadline_ms);
  for (const a of s.actions) {
    const at = (a.at_ms ?? 0) + a.delay_ms;
    if (a.type === 'cancel') h = Math.max(h, at + a.cancel_deadline_ms);
    if (a.type === 'pause_worker') h = Math.max(h, at + a.resume_after_ms);
  }
  return h;
}

/**
 * Carry out one scenario through a driver: submit the workload, start the workers, fire each action when its
 * trigger is seen, keep a worker alive while work remains, then collect the evidence the judge needs.
 */
export async function executeScenario(s: Scenario, d: RunDriver, opts: ExecuteOptions = {}): Promise<ExecuteResult> {
  const log = opts.log ?? (() => undefined);
  const t0 = d.now();
  const deadline = t0 + horizonMs(s) + s.quiet_timeout_ms + (opts.marginMs ?? 5000);
  const tracker = new EventTracker();
  const submissions: Submission[] = [];
  const cancels: CancelIntent[] = [];
  const harness: HarnessEvent[] = [];
  const operations: string[] = [];
  const finals = new Map<string, OperationRecord>();
  let journalSeq = 0;
  let submitSpread = 0;
  let rescues = 0;
  // Harness-started workers get ids of their own, never one a scenario action uses.
  let freshWorker = 0;

  const event = (type: HarnessEvent['type'], worker_id?: string, at = d.now()) => harness.push({ at: isoTime(at), type, worker_id });
  const pumpJournal = () => {
    for (const e of d.journalSince(journalSeq)) {
      tracker.ingest(e);
      journalSeq = e.seq;
    }
  };

  const needsKey = new Set(s.actions.flatMap((a) => (a.after && 'operation' in a.after ? [a.after.operation] : [])));
  const submit = async (op: SubmitInput) => {
    const at = d.now();
    const exit = await d.submit(op);
    // The client records the operation somewhere inside the call; how long the call took is how uncertain its
    // start of the deadlines is (a process may take a while to start), so the judge tolerates that much.
    submitSpread = Math.max(submitSpread, d.now() - at);
    submissions.push({ operation_id: op.operation_id, request: op, submitted_at: isoTime(at), exit_code: exit });
    if (exit !== 0) return exit;
    if (!operations.includes(op.operation_id)) operations.push(op.operation_id);
    // Only event triggers need the operation's key; a `show` costs a process start in process runs.
    if (needsKey.has(op.operation_id)) {
      const rec = await d.show(op.operation_id);
      if (rec) tracker.setKey(op.operation_id, rec.idempotency_key);
    }
    return exit;
  };

  const fire = async (p: PendingAction) => {
    const a = p.action;
    log(`  ${isoTime(d.now())} action ${p.index + 1}: ${a.type}${'worker' in a ? ` ${a.worker}` : ''}${'operation' in a ? ` ${a.operation}` : ''}`);
    switch (a.type) {
      case 'cancel': {
        const intent = { actor: a.actor, reason: a.reason, cancel_deadline_ms: a.cancel_deadline_ms };
        const at = d.now();
        if ((await d.cancel(a.operation, intent)) === 0) cancels.push({ operation_id: a.operation, ...intent, requested_at: isoTime(at) });
        break;
      }
      case 'kill_worker':
        killedByHarness.add(a.worker);
        await d.killWorker(a.worker);
        event('kill', a.worker);
        break;
      case 'start_worker':
        await d.startWorker(a.worker);
        event('start', a.worker);
        break;
      case 'pause_worker': {
        const at = d.now();
        await d.pauseWorker(a.worker, at + a.resume_after_ms);
        event('pause', a.worker, at);
        event('lease_expired', a.worker, at + s.lease_ms);
        resumes.push({ worker: a.worker, at: at + a.resume_after_ms });
        break;
      }
      case 'restart_provider':
        event('provider_restart');
        await d.restartProvider(a.down_ms);
        break;
      case 'submit_changed': {
        const original = s.workload.find((o) => o.operation_id === a.operation);
        if (!original) break;
        await submit({ ...stripAt(original), input: a.input });
        await submit({ ...stripAt(original), operation_id: a.new_operation_id, input: a.input });
        break;
      }
    }
    if (a.id) tracker.actionDone(a.id, d.now());
  };

  const resumes: { worker: string; at: number }[] = [];
  const pending: PendingAction[] = s.actions.map((action, index) => ({ action, index }));
  const laterOps = s.workload.filter((o) => o.at_ms > 0);
  for (const op of s.workload.filter((o) => o.at_ms === 0)) await submit(stripAt(op));
  for (let i = 1; i <= s.workers; i++) {
    await d.startWorker(`worker-${i}`);
    event('start', `worker-${i}`);
  }

  let timedOut = false;
  let seenLive = new Set(d.liveWorkers());
  const killedByHarness = new Set<string>();
  for (;;) {
    pumpJournal();
    // A worker that ended by itself is no longer there to act on deadlines: the judge must know.
    const live = new Set(d.liveWorkers());
    for (const id of seenLive) if (!live.has(id) && !killedByHarness.has(id)) event('exit', id);
    seenLive = live;
    const rel = d.now() - t0;
    for (const op of laterOps.filter((o) => o.at_ms <= rel)) {
      laterOps.splice(laterOps.indexOf(op), 1);
      await submit(stripAt(op));
      // Workers that found nothing left to do have exited; new work gets a worker at once, as a deployment would.
      const killedAll = [...harness].reverse().find((h) => h.type === 'kill' || h.type === 'start')?.type === 'kill';
      if (d.liveWorkers().length === 0 && !killedAll) {
        const id = `rescue-${++freshWorker}`;
        await d.startWorker(id);
        event('start', id);
      }
    }
    for (const r of resumes.filter((r) => r.at <= d.now())) {
      resumes.splice(resumes.indexOf(r), 1);
      await d.resumeWorker(r.worker);
      event('resume', r.worker, r.at);
    }
    for (const p of [...pending]) {
      if (p.triggeredAt === undefined) {
        p.triggeredAt = p.action.at_ms !== undefined ? (rel >= p.action.at_ms ? t0 + p.action.at_ms : undefined) : p.action.after ? tracker.firstSeen(p.action.after) : undefined;
      }
      if (p.triggeredAt !== undefined && d.now() >= p.triggeredAt + p.action.delay_ms) {
        pending.splice(pending.indexOf(p), 1);
        await fire(p);
      }
    }
    if (d.liveWorkers().length === 0 && resumes.length === 0) {
      // Every worker exited (work returns when all is final) or was killed: see what is still open.
      for (const op of operations) {
        if (finals.has(op)) continue;
        const rec = await d.show(op);
        if (rec && isFinalState(rec.state)) finals.set(op, rec);
      }
      const open = operations.filter((op) => !finals.has(op));
      const waitingForStart = pending.some((p) => p.action.type === 'start_worker');
      if (open.length === 0 && laterOps.length === 0) break;
      if (!waitingForStart && open.length > 0 && rescues < (opts.maxRescueWorkers ?? 3)) {
        rescues++;
        const id = `rescue-${++freshWorker}`;
        log(`  no worker left with ${open.length} open operation(s): starting ${id}`);
        await d.startWorker(id);
        event('start', id);
      }
    }
    if (d.now() > deadline) {
      timedOut = true;
      log(`  run cut off at its time bound; operations still open are judged as they stand`);
      break;
    }
    const nextAction = Math.min(
      ...pending.map((p) => (p.triggeredAt !== undefined ? p.triggeredAt + p.action.delay_ms : p.action.at_ms !== undefined ? t0 + p.action.at_ms : Infinity)),
      ...resumes.map((r) => r.at),
      ...laterOps.map((o) => t0 + o.at_ms),
      deadline + 1,
    );
    await d.waitStep(nextAction);
  }

  await d.stopWorkers();
  pumpJournal();
  const records: OperationRecord[] = [];
  for (const op of operations) {
    // A final record read while no worker ran cannot have changed since.
    const rec = finals.get(op) ?? (await d.show(op));
    if (rec) records.push(rec);
  }
  return {
    evidence: {
      scenario: s.name, principal: d.principal, journal: d.journalSince(0), records, submissions, cancels, harness, jobs: d.providerJobs(),
      options: { ...opts.tolerances, clock_tolerance_ms: (opts.tolerances?.clock_tolerance_ms ?? 50) + submitSpread },
    },
    timedOut,
    durationMs: d.now() - t0,
  };
}
