import type { ScenarioInput } from '../schema.js';
import { behavior, op } from './common.js';

/** Scenarios 12–18 of conformance.md: the provider's jobs behave awkwardly, no transport faults. */
export const jobBehaviourScenarios: ScenarioInput[] = [
  {
    name: 'never-finishes',
    title: 'Never finishes',
    what_happens: 'The job never ends; the client must stop at the 3 s result deadline with result_timed_out.',
    invariants: ['I12', 'I8'],
    behavior: behavior({ outcome: 'never' }),
    workload: [op('op_1', { result_deadline_ms: 3000 })],
  },
  {
    name: 'cancel-unconfirmed',
    title: 'Cancel never confirmed',
    what_happens:
      'The provider accepts the cancel and keeps the job in cancelling for ever; after the 1.5 s cancel deadline the client must say cancellation_unconfirmed.',
    invariants: ['I5'],
    behavior: behavior({ duration_ms: 5000, commit_point: 0.9, cancel: 'ignore' }),
    workload: [op('op_1')],
    actions: [
      {
        type: 'cancel',
        operation: 'op_1',
        after: { event: 'create_answered', operation: 'op_1' },
        delay_ms: 300,
        actor: 'user-1',
        reason: 'wrong account',
        cancel_deadline_ms: 1500,
      },
    ],
  },
  {
    name: 'cancel-after-end',
    title: 'Cancel after the job ended',
    what_happens:
      "The worker is paused as soon as its record shows the create's answer; the 2 s job succeeds meanwhile and the cancel is recorded after it ended, so the resumed worker's cancel is answered 409 job_terminal. The client must report what happened (succeeded, results fetched), never cancelled.",
    invariants: ['I4', 'I5', 'I3'],
    // The job outlasts the reading of the record (a `show` process or two) and ends inside the 3 s pause.
    behavior: behavior({ duration_ms: 2000 }),
    workload: [op('op_1')],
    lease_ms: 500,
    actions: [
      // After the worker's commit of the answer, seen in its record: a worker paused inside that store transaction
      // held the cancel back until it resumed, and then learnt of the job's end first.
      {
        type: 'pause_worker',
        id: 'pause',
        worker: 'worker-1',
        resume_after_ms: 3000,
        after: { event: 'create_recorded', operation: 'op_1' },
      },
      {
        type: 'cancel',
        operation: 'op_1',
        after: { event: 'job_state', operation: 'op_1', state: 'succeeded' },
        actor: 'user-1',
        reason: 'too late',
        cancel_deadline_ms: 3000,
      },
    ],
  },
  {
    name: 'cancel-while-create-held',
    title: 'Cancel while the create is held',
    what_happens:
      'The first create reaches the provider and is held there 5 s before it executes; the worker that sent it is killed 700 ms into the hold and a new one starts; a cancel with a 1.5 s deadline comes 500 ms after the kill. By the cancel deadline the provider shows no job, yet the held create executes afterwards: the client must end cancellation_unconfirmed, never cancelled (the run lasts until the held create has executed).',
    invariants: ['I4', 'I5', 'I1'],
    behavior: behavior({}),
    // The hold must outlast the cancel deadline (2.7 s into the hold) and the client's last reads after it (800 ms of
    // grace), so that no job is there to see until the client has given up: it executes 1.5 s past those reads.
    // The run lasts until the held create has executed, so the hold is this scenario's floor.
    faults: { seed: 12, rules: [{ id: 'hold-first-create', on: 'create', nth: 1, fault: { type: 'delay', ms: 5000 } }] },
    workload: [op('op_1', { create_deadline_ms: 2000, result_deadline_ms: 10000 })],
    actions: [
      // Timed from the hold, not from the run's start: a worker that starts late (lanes starting together on a busy
      // machine) could be killed before it sends anything, and a later worker's create would be the held one.
      { type: 'kill_worker', id: 'kill', worker: 'worker-1', after: { event: 'request_held' }, delay_ms: 700 },
      { type: 'start_worker', worker: 'worker-2', after: { event: 'action_done', action: 'kill' } },
      {
        type: 'cancel',
        operation: 'op_1',
        after: { event: 'action_done', action: 'kill' },
        delay_ms: 500,
        actor: 'user-1',
        reason: 'no longer needed',
        cancel_deadline_ms: 1500,
      },
    ],
  },
  {
    name: 'partial-batch',
    title: 'Partial batch',
    what_happens: '2 of 10 items fail; the job still succeeds and the client must report items_failed 2.',
    invariants: ['I11', 'I3'],
    behavior: behavior({ items: 10, items_failed: 2 }),
    workload: [op('op_1')],
  },
  {
    name: 'corrupt-result',
    title: 'Corrupt result',
    what_happens: 'The results body does not match its digest.',
    invariants: ['I11'],
    behavior: behavior({ corrupt_digest: true }),
    workload: [op('op_1')],
  },
  {
    name: 'error-row',
    title: 'Error row',
    what_happens: 'The results hold an error row although the job reports no failed item.',
    invariants: ['I11'],
    behavior: behavior({ error_row: true }),
    workload: [op('op_1')],
  },
  {
    name: 'one-shot-results',
    title: 'One-shot results',
    what_happens: 'Results can be fetched once; webhooks are on, so a client that fetches on the webhook and again on the poll loses them.',
    invariants: ['I3', 'I13'],
    behavior: behavior({ one_shot_results: true }),
    workload: [op('op_1')],
    webhooks: true,
  },
];
