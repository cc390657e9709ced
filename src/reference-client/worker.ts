import { setMaxListeners } from 'node:events';
import type { Clock, TimerHandle } from '../lib/clock.js';
import type { HttpOptions } from './http.js';
import { OpStep, type StepEnv } from './op-step.js';
import { runStep } from './step.js';
import type { WireAdapter } from './wire/adapter.js';
import { CancelRecordedError, LeaseLostError, type Lease, type OperationStore } from './store/operation-store.js';
import { isTransientPgError } from './store/pg-errors.js';

export interface WorkerOptions {
  store: OperationStore;
  clock: Clock;
  http: HttpOptions;
  workerId: string;
  leaseMs: number;
  webhookUrl: string | null;
  /** The API spoken (wire/index.ts `wireFor`). */
  wire: WireAdapter;
  /** Operations stepped at once by this worker. */
  concurrency?: number;
  /** Longest sleep before looking at the store again (other processes submit, cancel and finish work). */
  idlePollMs?: number;
}

/**
 * The worker loop. Leases are sticky: once this worker takes an operation it keeps renewing the lease (heartbeat)
 * until the operation is final, so ownership changes only when a worker dies or stalls past its lease — which makes
 * every takeover visible as a fencing-token bump and keeps the provider's journal free of harmless ping-pong.
 */
export class Worker {
  private readonly held = new Map<string, Lease>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly pokes = new Set<string>();
  private wakeCtl = new AbortController();
  private woken = false;
  private failure: unknown = null;

  constructor(private readonly o: WorkerOptions) {}

  /** Something changed (webhook, submit, cancel, a turn ended): look at the store now. */
  wake(): void {
    this.woken = true;
    this.wakeCtl.abort();
  }

  /** A webhook asked for a prompt read of this operation. */
  poke(operationId: string): void {
    if (this.running.has(operationId)) this.pokes.add(operationId);
    // A hint only: if the store cannot take it now, the regular schedule still reads the job.
    this.o.store.pollSoon(operationId, this.o.clock.now()).then(
      () => this.wake(),
      () => this.wake(),
    );
  }

  async run(signal: AbortSignal): Promise<void> {
    const { store, clock, workerId, leaseMs } = this.o;
    const concurrency = this.o.concurrency ?? 16;
    const idlePollMs = this.o.idlePollMs ?? 1000;
    const env: StepEnv = {
      store,
      clock,
      http: this.o.http,
      workerId,
      leaseMs,
      signal,
      webhookUrl: this.o.webhookUrl,
    };
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
          if (this.running.size === 0 && !(await store.hasOpen())) break;
          const free = concurrency - this.running.size;
          if (free > 0) {
            const tokens = new Map([...this.held].map(([id, l]) => [id, l.token]));
            // What we are stepping is not claimed again: the claim would push its next step a lease ahead (a webhook's
            // poke made a running operation due; the claim hid it until its 1,516 ms lease ran out, past its deadline).
            const leases = (await store.claimDue(workerId, clock.now(), leaseMs, free, tokens, new Set(this.running.keys()))).filter(
              (l) => !this.running.has(l.operation_id),
            );
            claimed = leases.length;
            for (const lease of leases) this.start(env, lease);
          }
          if (claimed > 0 || this.woken) continue;
          // The operations we are stepping wake us when their turn ends; their stale due times must not (a due but busy
          // one would make the loop sleep a whole idle poll and miss another operation's deadline, I12).
          wakeAt = await store.nextWakeAt(workerId, now, new Set(this.running.keys()));
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
      await Promise.allSettled([...this.held.values()].map((lease) => store.release(lease)));
      this.held.clear();
    }
  }

  private start(env: StepEnv, lease: Lease): void {
    this.held.set(lease.operation_id, lease);
    const p = this.turn(env, lease).finally(async () => {
      if (this.pokes.delete(lease.operation_id)) await this.o.store.pollSoon(lease.operation_id, this.o.clock.now()).catch(() => undefined);
      this.running.delete(lease.operation_id);
      this.wake();
    });
    this.running.set(lease.operation_id, p);
  }

  private async turn(env: StepEnv, lease: Lease): Promise<void> {
    const id = lease.operation_id;
    try {
      // A cancel recorded between our read and our write makes us re-plan from the record (bounded: one intent).
      for (let i = 0; i < 3; i++) {
        const rec = await this.o.store.get(id);
        if (!rec) return;
        const step = new OpStep(env, this.o.wire, lease, rec);
        try {
          await runStep(step);
          break;
        } catch (err) {
          if (!(err instanceof CancelRecordedError)) throw err;
        }
      }
      const after = await this.o.store.get(id);
      if (!after || after.lease_owner !== lease.owner || after.fencing_token !== lease.token) this.held.delete(id);
    } catch (err) {
      this.held.delete(id);
      // Lost lease, or the store was locked by another process: the operation is simply claimed again later.
      if (err instanceof LeaseLostError || isBusy(err)) return;
      // Anything else is a bug in the client (e.g. a transition the table refuses): stop loudly, not silently.
      this.failure ??= err;
      this.wake();
    }
  }

  private async renewHeld(): Promise<void> {
    const now = this.o.clock.now();
    for (const [id, lease] of this.held) {
      if (lease.expires_at - now > (this.o.leaseMs * 2) / 3) continue;
      if (!(await this.o.store.renew(lease, now, this.o.leaseMs))) this.held.delete(id);
    }
  }
}

/**
 * A store that cannot answer right now, not a fault of ours: SQLite's "database is locked" after busy_timeout, or a
 * PostgreSQL server that is restarting, unreachable, or cancelled a statement / a serialization conflict.
 */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED') return true;
  return isTransientPgError(err);
}
