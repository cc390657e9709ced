import type { Clock } from '../lib/clock.js';
import type { HttpOptions } from './http.js';
import { LeaseLoop, type OperationKind } from './lease-loop.js';
import { OpStep, type StepEnv } from './op-step.js';
import { runStep } from './step.js';
import type { WireAdapter } from './wire/adapter.js';
import { CancelRecordedError, LeaseLostError, type Lease, type OperationStore } from './store/operation-store.js';

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

/** The job worker: the one lease loop (lease-loop.ts) over the operation store, each turn an OpStep. */
export class Worker extends LeaseLoop<Lease> {
  constructor(o: WorkerOptions) {
    super(jobKind(o), o);
  }
}

/** Jobs as an operation kind: the operation store's leases, and a turn that runs one OpStep routed by local state. */
export function jobKind(o: WorkerOptions): OperationKind<Lease> {
  const { store } = o;
  return {
    idOf: (lease) => lease.operation_id,
    hasOpen: () => store.hasOpen(),
    claimDue: (owner, now, leaseMs, limit, held, busy) => store.claimDue(owner, now, leaseMs, limit, held, busy),
    nextWakeAt: (owner, now, busy) => store.nextWakeAt(owner, now, busy),
    renew: (lease, now, leaseMs) => store.renew(lease, now, leaseMs),
    release: (lease) => store.release(lease),
    pollSoon: (id, at) => store.pollSoon(id, at),
    isLeaseLost: (err) => err instanceof LeaseLostError,
    async turn(lease, signal) {
      const env: StepEnv = {
        store,
        clock: o.clock,
        http: o.http,
        workerId: o.workerId,
        leaseMs: o.leaseMs,
        signal,
        webhookUrl: o.webhookUrl,
      };
      const id = lease.operation_id;
      // A cancel recorded between our read and our write makes us re-plan from the record (bounded: one intent).
      for (let i = 0; i < 3; i++) {
        const rec = await store.get(id);
        if (!rec) return false;
        try {
          await runStep(new OpStep(env, o.wire, lease, rec));
          break;
        } catch (err) {
          if (!(err instanceof CancelRecordedError)) throw err;
        }
      }
      const after = await store.get(id);
      return !!after && after.lease_owner === lease.owner && after.fencing_token === lease.token;
    },
  };
}
