import type { ScenarioInput } from '../schema.js';
import { behavior, op } from './common.js';

/** Scenarios 18–22 of conformance.md: webhook delivery, the synchronous path, lying progress, a restart. */
export const deliveryAndRestartScenarios: ScenarioInput[] = [
  {
    name: 'out-of-order-webhooks',
    title: 'Out-of-order webhooks',
    what_happens: 'Webhooks arrive reversed (job.succeeded before job.running).',
    invariants: ['I13'],
    behavior: behavior({}),
    faults: { seed: 18, rules: [{ id: 'reverse', on: 'webhook', fault: { type: 'reorder' } }] },
    workload: [op('op_1')],
    webhooks: true,
  },
  {
    name: 'dropped-webhooks',
    title: 'Dropped webhooks',
    what_happens: 'No webhook arrives; the client must still reach the final state by polling.',
    invariants: ['I13', 'I3'],
    behavior: behavior({}),
    faults: { seed: 19, rules: [{ id: 'drop-all', on: 'webhook', fault: { type: 'drop' } }] },
    workload: [op('op_1')],
    webhooks: true,
  },
  {
    name: 'sync-completion',
    title: 'Synchronous completion',
    what_happens: 'The create answers 200 with a job that is already succeeded; results are fetched as for any job.',
    invariants: ['I3', 'I4'],
    behavior: behavior({ mode: 'sync' }),
    workload: [op('op_1')],
  },
  {
    name: 'progress-lies',
    title: 'Progress lies',
    what_happens: 'Progress reads 100 % long before the 2.5 s job ends; only state succeeded means done.',
    invariants: ['I4'],
    behavior: behavior({ duration_ms: 2500, progress_lies: true }),
    workload: [op('op_1')],
  },
  {
    name: 'provider-restart',
    title: 'Provider restart',
    what_happens: 'The provider process restarts 800 ms into a 2 s job (down 300 ms); its jobs, keys and journal survive.',
    invariants: ['I3', 'I1'],
    behavior: behavior({ duration_ms: 2000 }),
    workload: [op('op_1')],
    actions: [{ type: 'restart_provider', after: { event: 'create_answered', operation: 'op_1' }, delay_ms: 800, down_ms: 300 }],
  },
];
