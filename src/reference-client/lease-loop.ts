import { setMaxListeners } from 'node:events';
import type { Clock, TimerHandle } from '../lib/clock.js';
import { isTransientPgError } from './store/pg-errors.js';

/** What the loop keeps of a lease: the store extends `expires_at` on renew, and compares `token` on every write. */
export interface LoopLease {
  readonly owner: string;
  readonly token: number;
  expires_at: number;
}

/**
 * One kind of durable operation (jobs, tasks): its store's lease primitives and the step of one turn. Each store
 * method is one transaction; every write a turn makes is fenced on the lease's token.
 */
export interface OperationKind<L extends LoopLease> {
  idOf(lease: L): string;
  /** Whether anything is still open: the loop's exit test, asked every time round. */
  hasOpen(): Promise<boolean>;
  /**
   * Lease up to `limit` operations due at `now`: unleased, expired, or already ours (a lease held at the token in
   * `held` keeps its token; any other is taken with the next one). Operations in `busy` are being stepped: left alone.
   */
  claimDue(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
    held: ReadonlyMap<string, number>,
    busy: ReadonlySet<string>,
  ): Promise<L[]>;
  /** Earliest time something may become claimable by `owner`, or null when nothing is open. */
  nextWakeAt(owner: string, now: number, busy: ReadonlySet<string>): Promise<number | null>;
  /** Extend a lease; false when its token moved (someone took it) or the operation is final. */
  renew(lease: L, now: number, leaseMs: number): Promise<boolean>;
  release(lease: L): Promise<void>;
  /** A scheduling hint (a webhook): step this operation no later than `at`. Kinds without hints leave it out. */
  pollSoon?(id: string, at: number): Promise<void>;
  /**
   * One turn on one leased operation, routed by its local state. Resolves whether the lease is still ours after it;
   * throws an error `isLeaseLost` accepts when the lease was taken meanwhile (nothing more was sent or written).
   */
  turn(lease: L, signal: AbortSignal): Promise<boolean>;
  isLeaseLost(err: unknown): boolean;
}

export interface LeaseLoopOptions {
  clock: Clock;
  workerId: string;
  leaseMs: number;
  /** Operations stepped at once by this worker. */
  concurrency?: number;
  /** Longest sleep before looking at the store again (other processes submit, cancel and finish work). */
  idlePollMs?: number;
}

/**
 * The worker loop, one for every kind of operation. Leases are sticky: once this worker takes an operation it keeps
 * renewing the lease (heartbeat) until the operation is final, so ownership changes only when a worker dies or stalls
 * past its lease — which makes every takeover visible as a fencing-token bump and keeps the provider's journal free
 * of harmless ping-pong.
 */
/** Why a loop's sleep ended early; nobody reads it (the sleep's rejection is swallowed). */
const WOKEN = new Error('woken');

export class LeaseLoop<L extends LoopLease> {
  private readonly held = new Map<string, L>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly pokes = new Set<string>();
  private wakeCtl = new AbortController();
  private woken = false;
  private failure: unknown = null;

  constructor(
    private readonly kind: OperationKind<L>,
    private readonly o: LeaseLoopOptions,
  ) {}

  /** Something changed (webhook, submit, cancel, a turn ended): look at the store now. */
  wake(): void {
    this.woken = true;
    // Only the first wake of a sleep aborts it, with a reason made once: abort()'s default reason is a new
    // DOMException (a stack trace) on every call, even on a signal already aborted (1 % of an in-process run).
    if (!this.wakeCtl.signal.aborted) this.wakeCtl.abort(WOKEN);
  }

  /** A webhook asked for a prompt read of this operation. */
  poke(id: string): void {
    if (this.running.has(id)) this.pokes.add(id);
    // A hint only: if the store cannot take it now, the regular schedule still reads the operation.
    (this.kind.pollSoon?.(id, this.o.clock.now()) ?? Promise.resolve()).then(
      () => this.wake(),
      () => this.wake(),
    );
  }

  async run(signal: AbortSignal): Promise<void> {
    const { kind } = this;
    const { clock, workerId, leaseMs } = this.o;
    const concurrency = this.o.concurrency ?? 16;
    const idlePollMs = this.o.idlePollMs ?? 1000;
    // Each in-flight request listens on the stop signal; up to `concurrency` of them at once is expected.
    setMaxListeners(concurrency + 8, signal);
    const onAbort = () => this.wake();
    signal.addEventListener('abort', onAbort, { once: true });
    let beat: TimerHandle | null = null;
    let stopped = false;
    const heartbeat = async () => {
      try {
        await this.renewHeld();
      } catch (err) {
        if (stopped) return;
        if (isBusy(err)) {
          // Another process holds the store's write lock (it may be paused mid-transaction): try again next beat.
          beat = clock.setTimeout(() => void heartbeat(), Math.max(10, Math.floor(leaseMs / 3)));
          return;
        }
        // The store is gone (closing, or a crash being simulated): stop the loop rather than throw from a timer.
        this.failure ??= err;
        this.wake();
        return;
      }
      if (!stopped) beat = clock.setTimeout(() => void heartbeat(), Math.max(10, Math.floor(leaseMs / 3)));
    };
    void heartbeat();
    try {
      while (!signal.aborted && this.failure === null) {
        this.woken = false;
        let claimed = 0;
        let wakeAt: number | null;
        const now = clock.now();
        try {
          if (this.running.size === 0 && !(await kind.hasOpen())) break;
          const free = concurrency - this.running.size;
          if (free > 0) {
            const tokens = new Map([...this.held].map(([id, l]) => [id, l.token]));
            // What we are stepping is not claimed again: the claim would push its next step a lease ahead (a webhook's
            // poke made a running operation due; the claim hid it until its lease ran out, past its deadline).
            const leases = (await kind.claimDue(workerId, clock.now(), leaseMs, free, tokens, new Set(this.running.keys()))).filter(
              (l) => !this.running.has(kind.idOf(l)),
            );
            claimed = leases.length;
            for (const lease of leases) this.start(lease, signal);
          }
          if (claimed > 0 || this.woken) continue;
          // The operations we are stepping wake us when their turn ends; their stale due times must not (a due but busy
          // one made the loop sleep a whole idle poll, and another's deadline was missed).
          wakeAt = await kind.nextWakeAt(workerId, now, new Set(this.running.keys()));
        } catch (err) {
          // Lock contention (a paused worker may hold the write lock) is a reason to wait, not to stop.
          if (!isBusy(err)) throw err;
          wakeAt = now + idlePollMs;
        }
        const ms = wakeAt === null || wakeAt <= now ? idlePollMs : Math.min(idlePollMs, wakeAt - now);
        this.wakeCtl = new AbortController();
        if (this.woken) continue;
        await clock.sleep(ms, this.wakeCtl.signal).catch(() => undefined);
      }
      await Promise.allSettled([...this.running.values()]);
      if (this.failure !== null) throw this.failure;
    } finally {
      stopped = true;
      if (beat) clock.clearTimeout(beat);
      signal.removeEventListener('abort', onAbort);
      // A clean stop hands our operations back at once instead of making a successor wait out the lease.
      // Best effort: a store that is gone (crash drill, database down) leaves the leases to run out instead.
      await Promise.allSettled([...this.held.values()].map((lease) => kind.release(lease)));
      this.held.clear();
    }
  }

  private start(lease: L, signal: AbortSignal): void {
    const id = this.kind.idOf(lease);
    this.held.set(id, lease);
    const p = this.turn(lease, signal).finally(async () => {
      if (this.pokes.delete(id)) await this.kind.pollSoon?.(id, this.o.clock.now()).catch(() => undefined);
      this.running.delete(id);
      this.wake();
    });
    this.running.set(id, p);
  }

  private async turn(lease: L, signal: AbortSignal): Promise<void> {
    const id = this.kind.idOf(lease);
    try {
      if (!(await this.kind.turn(lease, signal))) this.held.delete(id);
    } catch (err) {
      this.held.delete(id);
      // Lost lease, or the store was locked by another process: the operation is simply claimed again later.
      if (this.kind.isLeaseLost(err) || isBusy(err)) return;
      // Anything else is a bug in the client (e.g. a transition the table refuses): stop loudly, not silently.
      this.failure ??= err;
      this.wake();
    }
  }

  private async renewHeld(): Promise<void> {
    const now = this.o.clock.now();
    for (const [id, lease] of this.held) {
      if (lease.expires_at - now > (this.o.leaseMs * 2) / 3) continue;
      if (!(await this.kind.renew(lease, now, this.o.leaseMs))) this.held.delete(id);
    }
  }
}

/**
 * A store that cannot answer right now, not a fault of ours: SQLite's "database is locked" after busy_timeout, or a
 * PostgreSQL server that is restarting, unreachable, or cancelled a statement / a serialization conflict.
 */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED') return true;
  return isTransientPgError(err);
}
