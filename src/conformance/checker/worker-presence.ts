import { ms } from './helpers.js';
import type { HarnessEvent } from './evidence.js';

/**
 * When the client had a running worker at all. A client cannot act on a deadline while every worker is killed
 * or paused; the judge starts counting its grace from the first moment a worker runs again.
 * Without harness events (hand-built evidence) a worker is assumed always to run.
 */
export function firstRunningAtOrAfter(harness: HarnessEvent[], t: number): number {
  const events = harness
    .filter((h) => h.worker_id && ['start', 'kill', 'pause', 'resume', 'exit'].includes(h.type))
    .sort((a, b) => ms(a.at) - ms(b.at));
  if (events.length === 0) return t;
  const running = new Set<string>();
  let i = 0;
  for (; i < events.length && ms(events[i]!.at) <= t; i++) apply(running, events[i]!);
  if (running.size > 0) return t;
  for (; i < events.length; i++) {
    apply(running, events[i]!);
    if (running.size > 0) return Math.max(t, ms(events[i]!.at));
  }
  // No worker ran again (the run ended first): the client had no chance at all.
  return Infinity;
}

function apply(running: Set<string>, e: HarnessEvent): void {
  if (e.type === 'start' || e.type === 'resume') running.add(e.worker_id!);
  else running.delete(e.worker_id!);
}
