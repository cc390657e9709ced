import { z } from 'zod';
import { BehaviorConfigSchema } from '../contract/behavior.js';
import { FaultPlanSchema } from '../contract/faults.js';
import { SubmitInputSchema } from '../contract/client-protocol.js';
import { InvariantIdSchema } from '../contract/invariants.js';
import { HarnessActionSchema } from './actions.js';
import { checkScenarioConsistency } from './consistency.js';

/** One logical operation of the workload: the `submit` stdin, plus when the harness submits it. */
export const WorkloadOperationSchema = SubmitInputSchema.extend({
  /** Run-clock time of the `submit` call (0: before the first worker starts). */
  at_ms: z.number().int().min(0).default(0),
});
export type WorkloadOperation = z.output<typeof WorkloadOperationSchema>;

/**
 * A scenario: everything a runner needs to reproduce one run, and the invariants the run is meant to probe.
 * The run starts `workers` worker processes (`worker-1` … `worker-N`) at time 0, submits the workload, carries out
 * the actions, and ends when every operation is final and the run has been quiet for `quiet_timeout_ms`, or when
 * nothing new happened for `quiet_timeout_ms` while some operation is still working (a hang: judged as is).
 */
export const ScenarioSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'names are lower-case words joined by dashes'),
    title: z.string().min(1).max(200),
    /** What happens, in one or two sentences (conformance.md's "what happens" column). */
    what_happens: z.string().min(1).max(2000),
    /** One of the drills every workflow must pass before running expensive jobs. */
    drill: z.boolean().default(false),
    invariants: z.array(InvariantIdSchema).min(1),
    /** Provider behaviour for new jobs (`PUT /_control/behavior`). */
    behavior: BehaviorConfigSchema.default({}),
    /** Provider-side fault plan (`PUT /_control/faults`). */
    faults: FaultPlanSchema.default({ seed: 0, rules: [] }),
    workload: z.array(WorkloadOperationSchema).min(1).max(100),
    actions: z.array(HarnessActionSchema).max(200).default([]),
    /** Run the client with webhook support (JOBPROOF_WEBHOOK_PORT per worker); needs a client that declares it. */
    webhooks: z.boolean().default(false),
    /** JOBPROOF_LEASE_MS. */
    lease_ms: z.number().int().positive().max(600_000).default(1000),
    workers: z.number().int().min(1).max(16).default(1),
    quiet_timeout_ms: z.number().int().positive().max(600_000).default(2000),
  })
  .strict()
  .superRefine(checkScenarioConsistency);

export type Scenario = z.output<typeof ScenarioSchema>;
export type ScenarioInput = z.input<typeof ScenarioSchema>;

/** Parse and say which field is wrong, e.g. `✖ unknown operation 'op_9'\n  → at actions[2].after.operation`. */
export function parseScenario(input: unknown): Scenario {
  const r = ScenarioSchema.safeParse(input);
  if (r.success) return r.data;
  const name = typeof input === 'object' && input !== null && 'name' in input ? String(input.name) : '(unnamed)';
  throw new Error(`scenario ${name} is invalid:\n${z.prettifyError(r.error).replace(/^/gm, '  ')}`);
}
