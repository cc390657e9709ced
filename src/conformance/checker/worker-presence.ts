import { ms } from './helpers.js';
import type { HarnessEvent } from './evidence.js';

/**
 * When the client had a running worker at all. A client cannot act while every worker is killed or paused, so the
 * judge counts a grace in time some worker ran. Without harness events (hand-built evidence) a worker always runs.
 *
 * The moment by which some worker has been running `runMs` in total since `t` — the time a client was actually given
 * to act. Counting from the first running moment alone is not enough: a worker that ran 190 ms after a job's end and
 * was then paused past the result deadline had 190 ms, not the grace, to see the job. Infinity when the workers never run that long.
 *
 * `owners`: the workers that worked the operation. One of them killed or paused still holds its lease until the
 * harness's `lease_expired` for it (or until it runs again), and no other worker may act meanwhile: that time does not
 * count either: an owner killed just before the deadline with a lease longer than the grace leaves no one to act.
 *
 * `needsProvider`: acting needs an answer (collecting a result, finding a job), so the time the provider is down does
 * not count either. Giving up at a deadline needs no provider, so I12 leaves it out.
 *
 * `arrivedBy`: a worker that exited by then (the operation's submission, within the clock tolerance) never saw the
 * operation — it found every operation final and ended, as `work` does — so it is gone for this one.
 */
export function runningFor(
  harness: HarnessEvent[],
  t: number,
  runMs: number,
  owners: ReadonlySet<string> = new Set(),
  opts: { needsProvider?: boolean; arrivedBy?: number } = {},
): number {
  const provider = (h: HarnessEvent) => opts.needsProvider === true && (h.type === 'provider_restart' || h.type === 'provider_up');
  const leftBefore = (h: HarnessEvent) => h.type === 'exit' && opts.arrivedBy !== undefined && ms(h.at) <= opts.arrivedBy;
  const events = harness
    .filter((h) => (h.worker_id && (KINDS.has(h.type) || leftBefore(h))) || provider(h))
    .sort((a, b) => ms(a.at) - ms(b.at));
  if (!events.some((e) => e.worker_id && e.type !== 'lease_expired')) {
    // No worker events (hand-built evidence): a worker always runs, only the provider may be down.
    events.unshift({ at: new Date(-8.64e15).toISOString(), type: 'start', worker_id: '(always)' });
  }
  const st: Presence = { running: new Set(), holding: new Set(), owners, providerDown: false };
  const free = () => st.running.size > 0 && st.holding.size === 0 && !st.providerDown;
  let i = 0;
  for (; i < events.length && ms(events[i]!.at) <= t; i++) apply(st, events[i]!);
  let left = runMs;
  let since = t;
  for (; i < events.length; i++) {
    const at = ms(events[i]!.at);
    if (free()) {
      if (at - since >= left) return since + left;
      left -= at - since;
    }
    apply(st, events[i]!);
    since = at;
  }
  return free() ? since + left : Infinity;
}

/** When an operation arrived, within the clock tolerance: `runningFor`'s `arrivedBy` (undefined without a submission). */
export function arrivedBy(op: { submission?: { submitted_at: string } | null }, toleranceMs: number): number | undefined {
  return op.submission ? ms(op.submission.submitted_at) + toleranceMs : undefined;
}

/** The workers that sent requests for an operation: the ones that may have held its lease. */
export function owners(op: {
  requests: ReadonlyArray<{ worker_id?: string | null }>;
  creates: ReadonlyArray<{ worker_id?: string | null }>;
}): Set<string> {
  return new Set([...op.requests, ...op.creates].map((r) => r.worker_id).filter((w): w is string => Boolean(w)));
}

// `exit` is left out: a worker that ended by itself gave its time away, it was not taken (counting it as gone made a
// client that exited right after collecting look as if it never had the grace, so I3 was never judged).
const KINDS = new Set<HarnessEvent['type']>(['start', 'kill', 'pause', 'resume', 'lease_expired']);

interface Presence {
  running: Set<string>;
  /** Owners of the operation killed or paused whose lease has not run out yet. */
  holding: Set<string>;
  owners: ReadonlySet<string>;
  /** Between a provider_restart and its provider_up, when the judge was asked to count it (`needsProvider`). */
  providerDown: boolean;
}

function apply(st: Presence, e: HarnessEvent): void {
  if (e.type === 'provider_restart' || e.type === 'provider_up') {
    st.providerDown = e.type === 'provider_restart';
    return;
  }
  const w = e.worker_id!;
  if (e.type === 'start' || e.type === 'resume') {
    st.running.add(w);
    st.holding.delete(w);
  } else if (e.type === 'lease_expired') st.holding.delete(w);
  else {
    st.running.delete(w);
    if (st.owners.has(w)) st.holding.add(w);
  }
}
