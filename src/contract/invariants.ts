import { z } from 'zod';

/**
 * The invariants of conformance.md as data. Shared by the scenario catalog (which invariants a scenario probes)
 * and the checker (which judges them), so an id is spelled in one place only.
 */
export const INVARIANT_IDS = ['I1', 'I2', 'I3', 'I4', 'I5', 'I6', 'I7', 'I8', 'I9', 'I10', 'I11', 'I12', 'I13', 'I14', 'I15'] as const;
export const InvariantIdSchema = z.enum(INVARIANT_IDS);
export type InvariantId = z.infer<typeof InvariantIdSchema>;

export interface InvariantInfo {
  id: InvariantId;
  name: string;
  /** "The client holds it when …", verbatim in meaning from conformance.md. */
  description: string;
}

export const INVARIANTS: readonly InvariantInfo[] = [
  {
    id: 'I1',
    name: 'at-most-once',
    description: 'every logical operation caused at most one job at the provider (counted from the journal, not from the client)',
  },
  {
    id: 'I2',
    name: 'key-discipline',
    description:
      'every create attempt of one operation carried the same Idempotency-Key; operations with different requests never share a key',
  },
  {
    id: 'I3',
    name: 'no-lost-result',
    description:
      "a job that succeeded at the provider before the result deadline, with valid results, ends succeeded in the client with the provider's result.sha256",
  },
  {
    id: 'I4',
    name: 'truthful-final-state',
    description:
      "the final state is backed by the journal: succeeded only after a verified results fetch was delivered; cancelled only if the provider's job is cancelled (or no create reached the provider); failed only after the provider said so; no final state while the provider's job is unknown to the client",
  },
  {
    id: 'I5',
    name: 'honest-cancel',
    description:
      "after a cancel intent the client kept observing until the provider's job was final or the cancel deadline passed; a lost race is reported as what happened, an unconfirmed cancel as cancellation_unconfirmed",
  },
  {
    id: 'I6',
    name: 'one-cancel',
    description: 'the cancel was sent by one owner, once, and again only after an ambiguous failure of the previous attempt',
  },
  {
    id: 'I7',
    name: 'retry-after',
    description:
      'after a 429, 503 or 409 that carried Retry-After, no request of that operation was sent before it elapsed (small tolerance)',
  },
  {
    id: 'I8',
    name: 'bounded-polling',
    description: "polls per job stay within the budget of a capped exponential backoff over the job's life",
  },
  {
    id: 'I9',
    name: 'single-owner',
    description:
      'no request is sent and no history entry is written under a lease token (X-Lease-Token) older than one already used for the operation, beyond the one request a stale worker already had under way; a worker that takes the lease back with a newer token is the owner again',
  },
  {
    id: 'I10',
    name: 'contract-violation',
    description:
      'a replayed create answered with a different job id leaves the operation in needs_attention, both ids in the history, and no further calls for it',
  },
  { id: 'I11', name: 'verified-results', description: 'corrupted results never end succeeded; partial batches report their failed items' },
  {
    id: 'I12',
    name: 'deadlines',
    description:
      'a job that never finishes ends result_timed_out after the result deadline and polling stops; create gives up after the create deadline without creating a second job',
  },
  {
    id: 'I13',
    name: 'webhook-safety',
    description:
      'duplicate, late, out-of-order or missing webhooks change nothing: same final state, results fetched once, a status read before any final state',
  },
  {
    id: 'I14',
    name: 'trace',
    description: 'one trace id per operation on every request for it; the trace id is never the idempotency key',
  },
  {
    id: 'I15',
    name: 'history',
    description: 'the history is append-only, every step is a transition the state machine allows, times never go back',
  },
];

/**
 * Invariants every run probes whatever its scenario: every request carries a trace id (I14) and every operation
 * has a history (I15). conformance.md's scenario table names none of them; the catalog keeps the table's lists as
 * they are and adds these when asked what a scenario probes.
 */
export const UNIVERSAL_INVARIANTS: readonly InvariantId[] = ['I14', 'I15'];

export function invariantInfo(id: InvariantId): InvariantInfo {
  // INVARIANTS lists every id, so the lookup cannot miss.
  return INVARIANTS.find((i) => i.id === id)!;
}

/**
 * The task invariants of tasks-api.md ("What the judge checks"), as data beside the job invariants: the task
 * scenarios name them and the task judge returns them in the same vocabulary (held, broken, not_applicable).
 */
export const TASK_INVARIANT_IDS = ['T1', 'T2', 'T3', 'T4', 'T5'] as const;
export const TaskInvariantIdSchema = z.enum(TASK_INVARIANT_IDS);
export type TaskInvariantId = z.infer<typeof TaskInvariantIdSchema>;

export interface TaskInvariantInfo {
  id: TaskInvariantId;
  name: string;
  description: string;
}

export const TASK_INVARIANTS: readonly TaskInvariantInfo[] = [
  {
    id: 'T1',
    name: 'apply-once',
    description: "each object changed at most once per approved proposal; the reported application is the provider's",
  },
  {
    id: 'T2',
    name: 'no-apply-without-approval',
    description: 'no apply sent while the task had no approval the client could know of',
  },
  { id: 'T3', name: 'redraft-followed', description: 'after a redraft no apply under the old approval; a new approval first' },
  {
    id: 'T4',
    name: 'no-foreign-or-revoked-approval',
    description: 'never apply under an approval by another tenant, the initiator, a revoked one or one of a stale proposal',
  },
  {
    id: 'T5',
    name: 'apply-key-discipline',
    description: 'one apply key per task, kept across retries, never the create key',
  },
];
