import { createHash } from 'node:crypto';

/**
 * Capped exponential backoff with "equal jitter" (half fixed, half random), never shorter than the provider's
 * Retry-After. The jitter is a hash of (operation id, attempt), not Math.random: the same run replays the same
 * schedule, and two workers still spread out because their operations differ.
 */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export const POLL_POLICY: BackoffPolicy = { baseMs: 500, capMs: 10_000 };
export const RETRY_POLICY: BackoffPolicy = { baseMs: 500, capMs: 8_000 };

/** Margin added to a Retry-After so that clock granularity never makes us early (I7). */
export const RETRY_AFTER_MARGIN_MS = 20;

export function jitterFraction(seed: string, attempt: number): number {
  const h = createHash('sha256').update(`${seed}#${attempt}`).digest();
  return h.readUInt32BE(0) / 0x1_0000_0000;
}

export function backoffDelay(policy: BackoffPolicy, attempt: number, seed: string): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp / 2 + (exp / 2) * jitterFraction(seed, attempt));
}

/**
 * RFC 9110 Retry-After: delay-seconds or an HTTP-date. Returns milliseconds from `now`, or null when absent or
 * unreadable (an unreadable header is ignored rather than trusted).
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** The next time to act: the backoff, pushed out to the Retry-After when the provider asked for more. */
export function nextDelay(policy: BackoffPolicy, attempt: number, seed: string, retryAfterMs: number | null): number {
  const d = backoffDelay(policy, attempt, seed);
  return retryAfterMs === null ? d : Math.max(d, retryAfterMs + RETRY_AFTER_MARGIN_MS);
}
