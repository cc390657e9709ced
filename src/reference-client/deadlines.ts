import type { Route } from './http.js';
import type { OperationRow } from './types.js';

/**
 * At a deadline the client does not give up blind: for a short grace it keeps trying to *read* what happened (never
 * to create or cancel), so a job that ended just in time — or while the provider was briefly unreachable — is
 * reported as what it was. After the grace it stops and says the deadline passed.
 */
export const DEADLINE_GRACE_MS = 800;
/**
 * The first retry interval for those last reads after an answer that taught nothing (after a timeout the next goes at
 * once, retryAt); each later one waits as long as the deadline is already past, so they fall at +100, +200, +400 ms.
 * A fixed 100 ms would make eight reads in the grace, which with the reads before the deadline can exceed the polling
 * budget (I8).
 */
export const DEADLINE_RETRY_MS = 100;

/** The deadline that governs the operation in its current state, or null when none does (collecting results). */
export function governingDeadline(r: OperationRow): number | null {
  switch (r.state) {
    case 'accepted':
    case 'observing':
      return r.result_deadline_at;
    case 'cancel_requested':
    case 'cancelling':
      return r.cancel?.deadline_at ?? null;
    case 'create_pending':
    case 'create_unknown':
    case 'reconciliation':
      // A cancel asked meanwhile governs (its deadline ends the wait); else the result deadline does.
      return r.cancel ? r.cancel.deadline_at : r.result_deadline_at;
    default:
      return null;
  }
}

export function giveUpAt(deadline: number): number {
  return deadline + DEADLINE_GRACE_MS;
}

/**
 * Past the deadline, a read needs room for a whole answer (MIN_REQUEST_MS) before the give-up time; without it the
 * last read would end the operation up to that long after the grace (a held read did: 1,004 ms past its deadline).
 */
export function noRoomToRead(now: number, deadline: number): boolean {
  return now >= deadline && now + MIN_REQUEST_MS > giveUpAt(deadline);
}

/**
 * When to try again after a read that taught us nothing, given the deadline and any Retry-After hold. `backoffMs` is
 * 0 after a timeout (retryDelay), and the next try then goes at once past the deadline too: the timeout already waited
 * at least MIN_REQUEST_MS, as long as the spacing of the last reads, and the halving timeouts bound how many follow.
 * Spaced on top, a read that timed out late in the grace left no room for another before the give-up, and the lookup
 * after a create that hung to the result deadline went late (I3).
 */
export function retryAt(now: number, backoffMs: number, deadline: number, notBefore: number): number {
  const spacing = backoffMs === 0 ? 0 : Math.max(DEADLINE_RETRY_MS, now - deadline);
  const wanted = now >= deadline ? now + spacing : Math.min(now + backoffMs, deadline);
  return heldBack(wanted, now, deadline, notBefore);
}

/** `wanted`, but never before a Retry-After hold, nor past the give-up time: at that time the step ends without a request. */
export function heldBack(wanted: number, now: number, deadline: number, notBefore: number): number {
  return Math.min(Math.max(wanted, notBefore), Math.max(giveUpAt(deadline), now + 1));
}

/** A request is given up on after at most this long (a hung answer), and never sooner than the minimum. */
export const MAX_REQUEST_MS = 10_000;
export const MIN_REQUEST_MS = 250;

/**
 * How long to wait for one answer. Not tied to the lease: the heartbeat keeps renewing it while we are alive, and a
 * stalled worker's one request under way is allowed. Bounded instead by what the answer is still good for — a
 * create by the create deadline, a read by the governing deadline's give-up time — so a held answer cannot make us
 * miss a deadline, while a merely slow one is still waited for. A read (or cancel, or fetch) gets at most half of the
 * time left: one hung request must leave room for another, or a read held until the give-up time would be the only
 * read of its operation and a job that succeeds just after it was sent would never be seen (I3). A create keeps the
 * whole window: abandoning one makes it ambiguous.
 */
export function requestTimeout(r: OperationRow, route: Route, now: number): number {
  const createBy = Math.min(r.create_deadline_at, r.result_deadline_at);
  // Collecting has no deadline of its own for the state machine, but a hung results fetch must not outlive the
  // result deadline's grace by more than the minimum either: the result deadline bounds it.
  const d = route === 'create' ? createBy : (governingDeadline(r) ?? (r.state === 'result_collecting' ? r.result_deadline_at : null));
  const window = d === null ? Infinity : route === 'create' ? d - now : (giveUpAt(d) - now) / 2;
  return Math.min(MAX_REQUEST_MS, Math.max(MIN_REQUEST_MS, Math.floor(window)));
}
