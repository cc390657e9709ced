import type { ScenarioInput } from '../schema.js';
import { behavior, op } from './common.js';

/** The five drills of conformance.md, in its order: every workflow passes these before real jobs. */
export const drills: ScenarioInput[] = [
  {
    name: 'lost-create-response',
    title: 'Lost create response',
    what_happens: 'The provider accepts the create and commits it, then the connection is reset before the answer arrives.',
    drill: true,
    invariants: ['I1', 'I2', 'I3'],
    behavior: behavior({}),
    faults: { seed: 1, rules: [{ id: 'lose-first-create', on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] },
    workload: [op('op_1')],
  },
  {
    name: 'crash-after-job-id',
    title: 'Crash after the job id',
    what_happens:
      'The worker is killed (SIGKILL) right after the provider answered the create, before its first poll; a new worker starts and must carry on with the same job.',
    drill: true,
    invariants: ['I1', 'I3', 'I4'],
    behavior: behavior({ duration_ms: 1500 }),
    workload: [op('op_1')],
    lease_ms: 500,
    actions: [
      { type: 'kill_worker', id: 'kill', worker: 'worker-1', after: { event: 'create_answered', operation: 'op_1' } },
      { type: 'start_worker', worker: 'worker-2', after: { event: 'action_done', action: 'kill' } },
    ],
  },
  {
    name: 'cancel-race',
    title: 'Cancel loses the race',
    what_happens:
      'The job commits 300 ms after creation (commit_point 0.2 of 1500 ms); the cancel arrives about 600 ms after the create answer, past the commit point, so the job succeeds anyway.',
    drill: true,
    invariants: ['I4', 'I5', 'I6'],
    behavior: behavior({ duration_ms: 1500, commit_point: 0.2 }),
    workload: [op('op_1')],
    actions: [
      {
        type: 'cancel',
        operation: 'op_1',
        after: { event: 'create_answered', operation: 'op_1' },
        delay_ms: 600,
        actor: 'user-1',
        reason: 'no longer needed',
        cancel_deadline_ms: 3000,
      },
    ],
  },
  {
    name: 'duplicate-webhook',
    title: 'Every webhook twice',
    what_happens: 'Every webhook event is delivered twice.',
    drill: true,
    invariants: ['I13'],
    behavior: behavior({}),
    faults: { seed: 4, rules: [{ id: 'dup-all', on: 'webhook', fault: { type: 'duplicate', copies: 1 } }] },
    workload: [op('op_1')],
    webhooks: true,
  },
  {
    name: 'stale-lease',
    title: 'Stale lease',
    what_happens:
      'worker-1 is paused (SIGSTOP) mid-operation, 200 ms after the provider began holding its first status read (held 1 s), past its 500 ms lease; worker-2 takes over; worker-1 resumes once worker-2 has acted for the operation and at least 1200 ms after the pause (6 s at most) while the job still runs and worker-2 owns it, and must neither send nor write under its old lease token; then a cancel follows, which the owner alone sends.',
    drill: true,
    invariants: ['I6', 'I9', 'I1'],
    // The job runs 4 s, so that worker-1 resumes with work still to do (a worker without fencing acts on its lost
    // lease); the cancel lands before the commit point (0.9) so it wins and the owner must confirm it.
    behavior: behavior({ duration_ms: 4000, commit_point: 0.9 }),
    // The first status read is answered 1 s late: worker-1 is paused while it waits on the network, not while it holds
    // its store's write lock (which would stop every worker and make the takeover a matter of luck).
    faults: { seed: 5, rules: [{ id: 'slow-first-poll', on: 'status', nth: 1, fault: { type: 'delay', ms: 1000 } }] },
    workload: [op('op_1', { result_deadline_ms: 10000 })],
    lease_ms: 500,
    actions: [
      {
        type: 'pause_worker',
        id: 'pause',
        worker: 'worker-1',
        // On what worker-2 did, not on a time alone: a worker process may take longer than any fixed pause to start
        // on a busy machine, and worker-1 resumed before the takeover leaves nothing to judge.
        resume_after_ms: 1200,
        resume_after: { event: 'worker_acted', worker: 'worker-2', operation: 'op_1' },
        resume_by_ms: 6000,
        // While its first status read is held by the provider: the worker waits on the network, outside any store
        // write. A time counted from the recorded create (seen through a `show` process, late on a busy machine) can
        // land on the claim that starts that read, and a worker stopped inside a write holds every other writer back,
        // worker-2's takeover included.
        after: { event: 'request_held' },
        delay_ms: 200,
      },
      { type: 'start_worker', worker: 'worker-2', after: { event: 'action_done', action: 'pause' } },
      {
        type: 'cancel',
        operation: 'op_1',
        after: { event: 'action_done', action: 'pause' },
        delay_ms: 1800,
        actor: 'user-1',
        reason: 'stop it',
        cancel_deadline_ms: 3000,
      },
    ],
  },
];
