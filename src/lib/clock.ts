/**
 * One clock abstraction for the provider, the webhook scheduler, the harness and the clients.
 * In-process runs share one VirtualClock so that thousands of fault schedules run in seconds.
 */
export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /** Resolves after `ms`; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(abortReason(signal!));
    };
    const handle = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class RealClock implements Clock {
  private seq = 0;
  private readonly timers = new Map<number, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, ms),
    );
    // A pending provider or webhook timer must never keep a CLI process alive on its own.
    t.unref();
    this.timers.set(id, t);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

interface VirtualTimer {
  id: number;
  due: number;
  fn: () => void;
}

/** Yield to pending promise callbacks and I/O so that work started by a timer can run before the next one. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}

/**
 * A clock that only moves when told. Timers fire in due order (ties in creation order), and between two timers
 * the event loop is allowed to settle, so async work triggered by one timer is done before the next fires.
 */
export class VirtualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: VirtualTimer[] = [];

  constructor(start: number | string = '2026-01-01T00:00:00.000Z') {
    this.current = typeof start === 'number' ? start : Date.parse(start);
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: ++this.seq, due: this.current + Math.max(0, ms), fn };
    // Keep sorted by (due, id): insertion point by binary search.
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const t = this.timers[mid]!;
      if (t.due < timer.due || (t.due === timer.due && t.id < timer.id)) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const i = this.timers.findIndex((t) => t.id === handle.id);
    if (i >= 0) this.timers.splice(i, 1);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Number of timers still waiting. */
  pending(): number {
    return this.timers.length;
  }

  /** Due time of the earliest timer, or undefined. */
  nextDue(): number | undefined {
    return this.timers[0]?.due;
  }

  /** Move time forward by `ms`, firing every timer that falls due on the way (including ones those timers set). */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.current + ms);
  }

  async advanceTo(target: number): Promise<void> {
    await settle();
    for (;;) {
      const next = this.timers[0];
      if (!next || next.due > target) break;
      this.timers.shift();
      this.current = Math.max(this.current, next.due);
      next.fn();
      await settle();
    }
    this.current = Math.max(this.current, target);
  }

  /** Jump to the next timer and fire it (and any due at the same instant). Returns false when none is left. */
  async step(): Promise<boolean> {
    await settle();
    const due = this.nextDue();
    if (due === undefined) return false;
    await this.advanceTo(due);
    return true;
  }
}

export const realClock: Clock = new RealClock();

// One entry of memory: a request formats the same millisecond several times (answer, journal, codec check).
let lastMs = Number.NaN;
let lastIso = '';
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
