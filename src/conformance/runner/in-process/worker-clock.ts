import type { Clock, TimerHandle } from '../../../lib/clock.js';

/**
 * A worker's view of the shared virtual clock that can be frozen: while frozen, its timers fire into a queue and
 * run only on thaw. A frozen worker does nothing at all — exactly what SIGSTOP does to a process, and, never
 * thawed, what SIGKILL does.
 */
export class FreezableClock implements Clock {
  private frozen = false;
  private queued: Array<() => void> = [];
  private waiters: Array<() => void> = [];

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.base.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.base.setTimeout(() => (this.frozen ? this.queued.push(fn) : fn()), ms);
  }

  clearTimeout(handle: TimerHandle): void {
    this.base.clearTimeout(handle);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.clearTimeout(h);
        reject(signal!.reason);
      };
      const h = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    const q = this.queued.splice(0);
    for (const fn of q) fn();
    for (const w of this.waiters.splice(0)) w();
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  /** Resolves at once when running, or at thaw: the gate every request and answer of the worker passes. */
  gate(): Promise<void> {
    return this.frozen ? new Promise((r) => this.waiters.push(r)) : Promise.resolve();
  }
}
