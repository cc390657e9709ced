import type { BehaviorInput } from '../../contract/behavior.js';
import type { ScenarioInput } from '../schema.js';

/**
 * Shared building blocks of the catalog. Durations are short (about a second of job time, deadlines of a few
 * seconds) so that a process runner gets through the whole catalog in well under a minute.
 */
export type WorkloadOperationInput = ScenarioInput['workload'][number];

export const REPORT_INPUT = { account: 'acct_218', range: { start: '2025-02-01', end: '2025-02-28' }, format: 'csv' };

export function op(operation_id: string, overrides: Partial<WorkloadOperationInput> = {}): WorkloadOperationInput {
  return {
    operation_id,
    kind: 'report',
    input: REPORT_INPUT,
    create_deadline_ms: 3000,
    result_deadline_ms: 8000,
    ...overrides,
  };
}

/** Behaviour for every kind: the catalog's workloads use one kind, so `default` is enough. */
export function behavior(b: BehaviorInput): ScenarioInput['behavior'] {
  return { default: { duration_ms: 1000, ...b } };
}
