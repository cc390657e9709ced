import type { FaultPlanInput } from '../../contract/faults.js';
import type { ScenarioInput } from '../schema.js';
import { REPORT_INPUT, behavior, op } from './common.js';

const FLAP_ROUTES = ['create', 'status', 'list', 'cancel', 'results'] as const;

/** 500, 502 and 503 (the last with Retry-After), each with probability 0.1, on every request route. */
const flapping: FaultPlanInput = {
  seed: 7,
  rules: FLAP_ROUTES.flatMap((on) => [
    { id: `${on}-500`, on, probability: 0.1, fault: { type: 'fail_before_commit', status: 500 } },
    { id: `${on}-502`, on, probability: 0.1, fault: { type: 'fail_before_commit', status: 502 } },
    { id: `${on}-503`, on, probability: 0.1, fault: { type: 'fail_before_commit', status: 503, retry_after: 1 } },
  ]),
};

/** Scenarios 6–11 of conformance.md: faults on the request path. */
export const requestFaultScenarios: ScenarioInput[] = [
  {
    name: 'create-hang',
    title: 'Create answer held',
    what_happens:
      'Every create is executed and committed, then its answer is held open until the client gives up; the client must find the job (list by key or client_ref) or give up by the create deadline without a second job.',
    invariants: ['I1', 'I2', 'I12'],
    behavior: behavior({}),
    faults: { seed: 6, rules: [{ id: 'hang-creates', on: 'create', fault: { type: 'lose_response', mode: 'hang' } }] },
    workload: [op('op_1', { create_deadline_ms: 1500 })],
  },
  {
    name: 'rate-limited',
    title: 'Rate-limited polls',
    what_happens: 'The first three status polls get 429 with Retry-After: 1.',
    invariants: ['I7', 'I8'],
    behavior: behavior({}),
    faults: { seed: 7, rules: [{ id: 'limit-polls', on: 'status', nth: [1, 2, 3], fault: { type: 'rate_limit', retry_after: 1 } }] },
    workload: [op('op_1')],
  },
  {
    name: 'flapping-5xx',
    title: 'Flapping 5xx',
    what_happens: 'Random 500/502/503 before commit on every route (probability 0.1 each, seeded).',
    invariants: ['I1', 'I3', 'I8'],
    behavior: behavior({}),
    faults: flapping,
    workload: [op('op_1'), op('op_2', { input: { ...REPORT_INPUT, account: 'acct_219' } })],
  },
  {
    name: 'error-after-commit',
    title: 'Error after commit',
    what_happens: 'The first create is executed and committed, then answered 500.',
    invariants: ['I1', 'I2'],
    behavior: behavior({}),
    faults: { seed: 9, rules: [{ id: 'err-first-create', on: 'create', nth: 1, fault: { type: 'error_after_commit' } }] },
    workload: [op('op_1')],
  },
  {
    name: 'changed-parameters',
    title: 'Changed parameters',
    what_happens:
      'While op_1 is still being created (its create is delayed 1 s), op_1 is submitted again with a changed input (must exit 3); then op_2 follows with the changed input.',
    invariants: ['I2', 'I1'],
    behavior: behavior({}),
    faults: { seed: 10, rules: [{ id: 'slow-first-create', on: 'create', nth: 1, fault: { type: 'delay', ms: 1000 } }] },
    workload: [op('op_1')],
    actions: [
      {
        type: 'submit_changed',
        operation: 'op_1',
        after: { event: 'create_sent', operation: 'op_1' },
        input: { ...REPORT_INPUT, format: 'xlsx' },
        new_operation_id: 'op_2',
      },
    ],
  },
  {
    name: 'foreign-job-id',
    title: 'Foreign job id on replay',
    what_happens:
      "The first create answer is lost; the replay answers with a different job id than the one the key created, and the first find (GET /v1/jobs?…) lists a foreign job next to the key's own. A client that replays meets the first, a client that reconciles by lookup meets the second; either must stop in needs_attention.",
    invariants: ['I10'],
    behavior: behavior({}),
    faults: {
      seed: 11,
      rules: [
        { id: 'lose-first', on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } },
        { id: 'foreign-replay', on: 'create', nth: 2, fault: { type: 'foreign_job_id' } },
        { id: 'foreign-find', on: 'list', nth: 1, fault: { type: 'foreign_job_id' } },
      ],
    },
    workload: [op('op_1')],
  },
];
