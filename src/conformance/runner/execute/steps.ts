import { isFinalState } from '../../../contract/client-protocol.js';
import { fireAction, submitOperation } from './actions.js';
import { type PendingAction, type PendingResume, type RunState, stripAt } from './run-state.js';

/**
 * The steps of one turn of the run loop, in the order executeScenario takes them. Each looks at the run clock
 * (`rel`: ms since the run started, read once per turn) and does what has fallen due.
 */

/** A worker that ended by itself is no longer there to act on deadlines: the judge must know. */
export function noticeExits(run: RunState): void {
  const live = new Set(run.d.liveWorkers());
  for (const id of run.seenLive) if (!live.has(id) && !run.killedByHarness.has(id)) run.event('exit', id);
  run.seenLive = live;
}

/** Submit the later operations that are due; new work gets a worker at once if none is left, as a deployment would. */
export async function submitArrivals(run: RunState, rel: number): Promise<void> {
  for (const op of run.laterOps.filter((o) => o.at_ms <= rel)) {
    run.laterOps.splice(run.laterOps.indexOf(op), 1);
    await submitOperation(run, stripAt(op));
    // Workers that found nothing left to do have exited; unless the scenario killed them all on purpose.
    const killedAll = [...run.harness].reverse().find((h) => h.type === 'kill' || h.type === 'start')?.type === 'kill';
    if (run.d.liveWorkers().length === 0 && !killedAll) await run.startFreshWorker();
  }
}

/** When a resume falls due: its minimum time once its condition (if any) is seen, else its bound. */
function resumeAt(run: RunState, r: PendingResume): number {
  if (!r.after) return r.at;
  const seen = run.tracker.firstSeen(r.after);
  return seen === undefined ? r.by : Math.min(r.by, Math.max(r.at, seen));
}

/** Resume the paused workers whose pause is over. */
export async function resumeDue(run: RunState): Promise<void> {
  const now = run.d.now();
  for (const r of run.resumes.filter((x) => resumeAt(run, x) <= now)) {
    run.resumes.splice(run.resumes.indexOf(r), 1);
    await run.d.resumeWorker(r.worker);
    // A conditional resume happens when the loop sees its condition, or at the bound by the driver's own timer.
    run.event('resume', r.worker, r.after ? Math.min(now, r.by) : r.at);
  }
}

/** The events actions and resumes still wait for. */
function awaited(run: RunState) {
  return [...run.pending.flatMap((p) => (p.triggeredAt === undefined ? [p.action.after] : [])), ...run.resumes.map((r) => r.after)];
}

/**
 * `create_recorded` is read from the client, not the journal: once the create was answered, `show` each turn until
 * the record names a job. Its time is when it was seen (a record carries no time of its own to trust).
 */
async function readRecorded(run: RunState): Promise<void> {
  const ops = new Set(awaited(run).flatMap((ev) => (ev?.event === 'create_recorded' ? [ev.operation] : [])));
  for (const op of ops) {
    if (run.tracker.firstSeen({ event: 'create_answered', operation: op }) === undefined) continue;
    const rec = await run.d.show(op);
    if (rec?.remote_job_id) run.tracker.recorded(op, run.d.now());
  }
}

/** `request_held` is read from the provider's held requests each turn while an action or resume waits for it. */
function readHeld(run: RunState): void {
  if (awaited(run).some((ev) => ev?.event === 'request_held') && run.d.heldRequests() > 0) run.tracker.held(run.d.now(), run.d.heldBy());
}

/** Note when each action's trigger (a time, or a journal event) is first met; fire those whose delay has passed. */
export async function fireTriggered(run: RunState, rel: number): Promise<void> {
  await readRecorded(run);
  readHeld(run);
  for (const p of [...run.pending]) {
    const a = p.action;
    if (p.triggeredAt === undefined) {
      p.triggeredAt =
        a.at_ms !== undefined ? (rel >= a.at_ms ? run.t0 + a.at_ms : undefined) : a.after ? run.tracker.firstSeen(a.after) : undefined;
    }
    if (p.triggeredAt !== undefined && run.d.now() >= p.triggeredAt + a.delay_ms) {
      run.pending.splice(run.pending.indexOf(p), 1);
      await fireAction(run, p);
    }
  }
}

/**
 * With no worker running and none paused: read what is still open. True when the run is over (all final, nothing
 * left to submit); otherwise a rescue worker is started if the scenario is not about to start one itself.
 */
export async function settleWhenIdle(run: RunState): Promise<boolean> {
  const { d } = run;
  if (d.liveWorkers().length > 0 || run.resumes.length > 0) return false;
  // Every worker exited (work returns when all is final) or was killed.
  const unread: string[] = [];
  for (const op of run.operations) {
    if (run.finals.has(op)) continue;
    const rec = await d.show(op);
    if (rec && isFinalState(rec.state)) run.finals.set(op, rec);
    if (!rec) unread.push(op);
  }
  const open = run.operations.filter((op) => !run.finals.has(op));
  const waitingForStart = run.pending.some((p) => p.action.type === 'start_worker' && coming(run, p));
  // Every operation is final, but a request the provider still holds may yet execute — a create that makes a job the
  // client already gave up on. The run lasts until it has (bounded by the run's deadline), so the judge sees it.
  if (open.length === 0 && run.laterOps.length === 0) return d.heldRequests() === 0;
  if (noRecordToWaitFor(run, open, unread, waitingForStart)) return true;
  if (!waitingForStart && open.length > 0 && run.rescues < (run.opts.maxRescueWorkers ?? 3)) {
    run.rescues++;
    const id = `rescue-${run.freshWorker + 1}`;
    run.log(`  no worker left with ${open.length} open operation(s): starting ${id}`);
    await run.startFreshWorker();
  }
  return false;
}

/**
 * Whether a pending action will still fire with no worker running: timed by the clock, already triggered, or after
 * an action that is itself coming. One waiting on what only a worker's requests make happen (a held request, a
 * create, a worker's act) never will, and a start waiting on it must not keep the rescue worker away: the run would
 * end with nothing acting, judged as a client that never acted.
 */
function coming(run: RunState, p: PendingAction, seen = new Set<PendingAction>()): boolean {
  const after = p.action.after;
  if (p.triggeredAt !== undefined || p.action.at_ms !== undefined || (after && run.tracker.firstSeen(after) !== undefined)) return true;
  // A job's state moves with the provider's clock, workers or none.
  if (after?.event !== 'action_done' || seen.has(p)) return after?.event === 'job_state';
  seen.add(p);
  const before = run.pending.find((q) => q.action.id === after.action);
  return before !== undefined && coming(run, before, seen);
}

/**
 * Whether the run should end now because no open operation has a record to read: `show` yielded none for every one
 * of them at two idle turns in a row (a rescue worker ran between, so a one-off failure of `show` is not enough).
 * Waiting to the time bound would only repeat the same unreadable answer.
 */
function noRecordToWaitFor(run: RunState, open: string[], unread: string[], waitingForStart: boolean): boolean {
  const stuck = open.length > 0 && !waitingForStart && run.laterOps.length === 0 && open.every((op) => unread.includes(op));
  run.unreadableTurns = stuck ? run.unreadableTurns + 1 : 0;
  if (run.unreadableTurns < 2) return false;
  const errors = run.d.protocolErrors?.() ?? new Map<string, string>();
  const why = open.map((op) => `${op} (${errors.get(op) ?? 'show refused it or printed nothing'})`);
  run.stopReason = `show never yielded a record for ${why.join(', ')}: the run ended early, as the records cannot be judged`;
  run.log(`  ${run.stopReason}`);
  return true;
}

/** When the next thing is due: an action, a resume, a later operation, or the run's time bound. */
export function nextWakeAt(run: RunState): number {
  return Math.min(
    ...run.pending.map((p) =>
      p.triggeredAt !== undefined ? p.triggeredAt + p.action.delay_ms : p.action.at_ms !== undefined ? run.t0 + p.action.at_ms : Infinity,
    ),
    ...run.resumes.map((r) => resumeAt(run, r)),
    ...run.laterOps.map((o) => run.t0 + o.at_ms),
    run.deadline + 1,
  );
}
