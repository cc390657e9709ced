import type { JournalEntry } from '../../contract/journal.js';
import type { CancelInput, OperationRecord, SubmitInput } from '../../contract/client-protocol.js';
import type { ProviderJob } from '../checker/evidence.js';

/**
 * What the scenario executor needs from a run, whatever carries it out: real processes over loopback, or an
 * in-process TypeScript client on a virtual clock. The executor owns the plan; a driver only does as told.
 */
export interface RunDriver {
  readonly mode: 'process' | 'in-process';
  /** The tenant and subject of the client's token. */
  readonly principal: { tenant: string; subject: string };
  /** Run clock, epoch ms (the provider's clock). */
  now(): number;
  /** Let the run make progress until `until` at the latest (virtual: advance to the next timer; real: sleep a tick). */
  waitStep(until: number): Promise<void>;
  /** `CMD submit`: the exit code (0 recorded, 3 changed request, 2 refused). */
  submit(op: SubmitInput): Promise<number>;
  cancel(operationId: string, intent: CancelInput): Promise<number>;
  /** `CMD show`: the record, or null when the client refused (unknown operation, bad output). */
  show(operationId: string): Promise<OperationRecord | null>;
  /**
   * Operations whose `show` printed something that is not a protocol record, each once with the field and the value
   * (client-protocol.md: one protocol error for the operation). Drivers whose records are typed need not say.
   */
  protocolErrors?(): ReadonlyMap<string, string>;
  startWorker(workerId: string): Promise<void>;
  killWorker(workerId: string): Promise<void>;
  /** Pause now; `resumeAt` (run clock) lets a driver resume on its own timer, so that no harness call that waits on
   * the paused worker (a lock it holds) can delay the resume. The executor still calls resumeWorker at that time. */
  pauseWorker(workerId: string, resumeAt?: number): Promise<void>;
  resumeWorker(workerId: string): Promise<void>;
  /** Workers started and neither killed nor exited. */
  liveWorkers(): string[];
  /** Ask every live worker to stop (SIGTERM / abort) and wait for them. */
  stopWorkers(): Promise<void>;
  restartProvider(downMs: number): Promise<void>;
  journalSince(seq: number): JournalEntry[];
  providerJobs(): ProviderJob[];
  /** Requests the provider holds (a `delay` fault) that have not executed yet: the run is not over while any is. */
  heldRequests(): number;
  /** The worker of each held request (those that named one), oldest hold first. */
  heldBy(): string[];
  /** Diagnostics a person needs when a run goes wrong (stderr of client processes, …). */
  diagnostics(): string[];
  close(): Promise<void>;
}
