import { z } from 'zod';
import { JobStateSchema } from '../contract/jobs.js';

/**
 * Harness actions of a scenario, and what starts them. A runner (process or in-process) interprets these; the
 * schema only says what is meant. All times are on the run's clock: 0 is the moment the run starts (provider up,
 * behaviour and fault plan installed, first submissions made).
 */

const operationId = z.string().min(1).max(200);
const workerId = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'worker ids are 1-64 characters of [A-Za-z0-9_.-]');

/**
 * Something the runner can see happen, read from the provider journal or from its own action log.
 * - `create_sent`: the first create request of the operation is in the journal (answered or not).
 * - `create_answered`: a create of the operation was answered with a job id and the answer was delivered.
 * - `create_recorded`: the client's own record names the job (`show` prints a `remote_job_id`): the answer is in its
 *   store. A worker paused after this is not paused inside the write that records it (which would hold every other
 *   writer of the store back, the harness's `cancel` included, until it resumes).
 * - `job_state`: the operation's job reached `state` (a journal transition).
 * - `action_done`: the action with this `id` has been carried out.
 * - `worker_acted`: a request of `worker` (its X-Worker-ID) for the operation is in the journal: a create under the
 *   operation's key, or any request naming one of its jobs.
 * - `request_held`: the provider holds a request under a `delay` fault (its held count is above zero). A held
 *   request has no journal entry until it executes, so this is the one way to act while it is held — at a time set by
 *   when the client sent it, not by a guess at how long the client takes to start. With `worker`, a request of that
 *   worker (its X-Worker-ID): the moment it waits on the network mid-operation with its lease held.
 */
export const ScenarioEventSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('create_sent'), operation: operationId }).strict(),
  z.object({ event: z.literal('create_answered'), operation: operationId }).strict(),
  z.object({ event: z.literal('create_recorded'), operation: operationId }).strict(),
  z.object({ event: z.literal('job_state'), operation: operationId, state: JobStateSchema }).strict(),
  z.object({ event: z.literal('action_done'), action: z.string().min(1) }).strict(),
  z.object({ event: z.literal('worker_acted'), worker: workerId, operation: operationId }).strict(),
  z.object({ event: z.literal('request_held'), worker: workerId.optional() }).strict(),
]);
export type ScenarioEvent = z.infer<typeof ScenarioEventSchema>;

/**
 * When an action fires: exactly one of `at_ms` (run clock) or `after` (an event), then `delay_ms` more.
 * "Exactly one" is checked by ScenarioSchema so that the error names the action's path.
 */
const timing = {
  /** Optional name, so that later actions can wait for this one (`after: {event: 'action_done', action}`). */
  id: z.string().min(1).max(100).optional(),
  at_ms: z.number().int().min(0).optional(),
  after: ScenarioEventSchema.optional(),
  delay_ms: z.number().int().min(0).default(0),
};

/** `CMD cancel OPERATION` with `{actor, reason, cancel_deadline_ms}` on stdin: record a cancel intent. */
const CancelAction = z
  .object({
    type: z.literal('cancel'),
    ...timing,
    operation: operationId,
    actor: z.string().min(1).max(200).default('harness'),
    reason: z.string().max(1000).default('scenario cancel'),
    cancel_deadline_ms: z.number().int().positive(),
  })
  .strict();

/** SIGKILL the worker process: no clean-up, no lease release. Pair with `start_worker` to take over. */
const KillWorkerAction = z.object({ type: z.literal('kill_worker'), ...timing, worker: workerId }).strict();

/** Start a `CMD work` process with JOBPROOF_WORKER_ID = `worker` (a fresh process, even for a reused id). */
const StartWorkerAction = z.object({ type: z.literal('start_worker'), ...timing, worker: workerId }).strict();

/**
 * SIGSTOP the worker, SIGCONT it `resume_after_ms` later. The pause must outlast the lease (checked against
 * `lease_ms`) so another worker can take over; the runner logs `pause`, `lease_expired` (pause + lease_ms) and
 * `resume` harness events for the judge (I9).
 * With `resume_after` the pause also lasts until that event is seen (e.g. the worker meant to take over has acted):
 * how soon a process starts depends on the machine's load, what it has done does not. `resume_by_ms` (required
 * then) bounds the pause, so a client whose other worker never acts still resumes.
 */
const PauseWorkerAction = z
  .object({
    type: z.literal('pause_worker'),
    ...timing,
    worker: workerId,
    resume_after_ms: z.number().int().positive(),
    resume_after: ScenarioEventSchema.optional(),
    resume_by_ms: z.number().int().positive().optional(),
  })
  .strict();

/** Stop the provider process and start it again on the same state after `down_ms`; jobs and keys survive. */
const RestartProviderAction = z
  .object({ type: z.literal('restart_provider'), ...timing, down_ms: z.number().int().min(0).max(60_000).default(0) })
  .strict();

/**
 * Submit `operation` again with `input` changed: the client must refuse with exit 3 and change nothing. Then submit
 * `new_operation_id` with the changed input (same kind and deadlines): a changed request is a new operation.
 */
const SubmitChangedAction = z
  .object({
    type: z.literal('submit_changed'),
    ...timing,
    operation: operationId,
    input: z.record(z.string(), z.unknown()),
    new_operation_id: operationId,
  })
  .strict();

export const HarnessActionSchema = z.discriminatedUnion('type', [
  CancelAction,
  KillWorkerAction,
  StartWorkerAction,
  PauseWorkerAction,
  RestartProviderAction,
  SubmitChangedAction,
]);
export type HarnessAction = z.output<typeof HarnessActionSchema>;
export type HarnessActionInput = z.input<typeof HarnessActionSchema>;
export const ACTION_TYPES = HarnessActionSchema.options.map((o) => o.shape.type.value);
