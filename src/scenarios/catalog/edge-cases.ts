import type { ScenarioInput } from '../schema.js';
import { behavior, op } from './common.js';

/**
 * Scenarios 25–27 of conformance.md: each built around one answer or moment the rest of the catalog meets only by
 * chance, so a client that mishandles it cannot pass unseen.
 */
export const edgeCaseScenarios: ScenarioInput[] = [
  {
    name: 'create-in-flight',
    title: 'Create still in flight',
    what_happens:
      'The first create is held at the provider 2.5 s before it executes; its worker is killed 200 ms after the provider holds that create, and worker-2 takes over. Every create worker-2 sends under the same key while the first is held answers 409 idempotency_request_in_progress with Retry-After: 1: it must wait each one out, get the job once the first create has executed (within the 4 s create deadline), and never make a second job.',
    invariants: ['I7', 'I1', 'I2'],
    behavior: behavior({}),
    faults: { seed: 25, rules: [{ id: 'hold-first-create', on: 'create', nth: 1, fault: { type: 'delay', ms: 2500 } }] },
    // The create deadline outlasts the hold (which ends by ~2.9 s: a start of ≤ 350 ms, then 2.5 s) by two Retry-After
    // waits of a client that sends again while it is held. The reference client waits out the first attempt's whole
    // window (the create deadline, then a lease) before it looks the job up, so the deadline sets this scenario's
    // floor (4 s + 0.5 s): no longer than the row needs.
    workload: [op('op_1', { create_deadline_ms: 4000, result_deadline_ms: 10000 })],
    lease_ms: 500,
    // The kill lands while the first create is held, 200 ms into its 2.5 s hold: set by when the create was sent, not
    // by a fixed time that a slow worker start (many lanes starting at once) could outlast, failing the client as
    // never having acted.
    actions: [
      { type: 'kill_worker', id: 'kill', worker: 'worker-1', after: { event: 'request_held' }, delay_ms: 200 },
      { type: 'start_worker', worker: 'worker-2', after: { event: 'action_done', action: 'kill' } },
    ],
  },
  {
    name: 'forged-webhook',
    title: 'Forged webhooks',
    what_happens:
      'Beside the first two real events of a 2 s job, a delivery the provider never made claims the job failed: the first unsigned, the second signed with a wrong secret. The job succeeds; a client must refuse both (verify the signature) and end with what the provider says.',
    invariants: ['I13', 'I4'],
    behavior: behavior({ duration_ms: 2000 }),
    faults: {
      seed: 26,
      rules: [
        { id: 'forge-unsigned', on: 'webhook', nth: 1, fault: { type: 'forge', signature: 'none', claim: 'failed' } },
        { id: 'forge-wrong-secret', on: 'webhook', nth: 2, fault: { type: 'forge', signature: 'wrong_secret', claim: 'failed' } },
      ],
    },
    workload: [op('op_1')],
    webhooks: true,
  },
  {
    name: 'killed-before-deadline',
    title: 'Worker killed just before the result deadline',
    what_happens:
      'The job never ends; worker-1 is killed 600 ms before the 4 s result deadline and worker-2 starts at once. The deadline is the record’s: worker-2 must end result_timed_out at the deadline (within the grace), not 4 s after its own start (3.4 s late: past any grace).',
    invariants: ['I12'],
    behavior: behavior({ outcome: 'never' }),
    // A client that counts the deadline from its own start ends as late as the kill came (3.4 s): past the judge's
    // grace in process (1 s) and through processes (2.5 s, both stretched alike by the time scale). The floor is the
    // deadline.
    workload: [op('op_1', { result_deadline_ms: 4000 })],
    lease_ms: 200,
    actions: [
      { type: 'kill_worker', id: 'kill', worker: 'worker-1', at_ms: 3400 },
      { type: 'start_worker', worker: 'worker-2', after: { event: 'action_done', action: 'kill' } },
    ],
  },
];
