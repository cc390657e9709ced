import { ms } from './helpers.js';
import type { HarnessEvent } from './evidence.js';

/**
 * When the client had a running worker at all. A client cannot act while every worker is killed or paused, so the
 * judge counts a grace in time some worker ran. Without harness events (hand-built evidence) a worker always runs.
 *
 * The moment by which some worker has been running `runMs` in total since `t` — the time a client was actually given
 * to act. Counting from the first running moment alone is not enough: a worker that ran 190 ms after a job's end and
 * was then paused past the result deadline had 190 ms, not the grace, to see the job (a false I3 FAIL, in-process
 * seed 7). Infinity when the workers never run that long.
 */
export function runningFor(harness: HarnessEvent[], t: number, runMs: number): number {
  const events = harness
    .filter((h) => h.worker_id && ['start', 'kill', 'pause', 'resume', 'exit'].includes(h.type))
    .sort((a, b) => ms(a.at) - ms(b.at));
  if (events.length === 0) return t + runMs;
  const running = new Set<string>();
  let i = 0;
  for (; i < events.length && ms(events[i]!.at) <= t; i++) apply(running, events[i]!);
  let left = runMs;
  let since = t;
  for (; i < events.length; i++) {
    const at = ms(events[i]!.at);
    if (running.size > 0) {
      if (at - since >= left) return since + left;
      left -= at - since;
    }
    apply(running, events[i]!);
    since = at;
  }
  return running.size > 0 ? since + left : Infinity;
}

function apply(running: Set<string>, e: HarnessEvent): void {
  if (e.type === 'start' || e.type === 'resume') running.add(e.worker_id!);
  else running.delete(e.worker_id!);
}
