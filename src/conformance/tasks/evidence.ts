import type { RequestEntry } from '../../contract/journal.js';
import type { InProcessTaskClient, TaskRecord } from '../../contract/task-client-protocol.js';

/** The face a task client under test offers the in-process runner (the reference client's `TaskClient` has it). */
export type TaskClientUnderTest = InProcessTaskClient;

/** One thing the harness did during a run, placed in the journal's order by the last journal seq before it. */
export interface HarnessEvent {
  /** The journal's last seq when the step ran: the step happened after every entry up to it. */
  after_seq: number;
  at: string;
  kind: 'put_object' | 'review' | 'set_principals' | 'restart_worker';
  object_ref?: string;
  tenant?: string;
  task_id?: string;
  decision?: string;
  status?: number;
  detail?: Record<string, unknown>;
}

export interface ProviderTask {
  task_id: string;
  tenant: string;
  state: string;
  object_ref: string;
  initiator: string;
  result: { proposal: { proposal_version: number; sha256: string; base_version: number } } | null;
  review: { decision: string; reviewer: string; proposal_version: number; proposal_sha256: string } | null;
  application: { applied_at: string; new_version: number; idempotency_key: string } | null;
}

/** Everything `checkTasks` judges: the provider's journal and final state, the client's records, the harness's steps. */
export interface TaskEvidence {
  /** Request entries of the provider journal (others are ignored). */
  journal: RequestEntry[];
  /** The client under test: its principal, and its task records (`task show`, parsed with TaskRecordSchema). */
  client: { tenant: string; subject: string; ops: TaskRecord[] };
  provider: {
    tasks: ProviderTask[];
    objects: Array<{ tenant: string; object_ref: string; version: number }>;
  };
  harness: HarnessEvent[];
}
