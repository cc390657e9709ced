import { z } from 'zod';
import { FaultRuleSchema } from '../../contract/faults.js';
import { PrincipalSchema } from '../../contract/principals.js';
import { TaskBehaviorSchema } from '../../contract/tasks.js';

/** A harness step on the run's clock: what reviewers, editors and administrators do while the client works. */
export const TaskStepActionSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('review'),
      token: z.string().default('reviewer-token'),
      decision: z.enum(['approve', 'reject', 'revoke']),
      /** Which task: the one of this client operation. */
      op: z.string(),
      /** `current`: the proposal version the task shows now; a number: that version (may be stale on purpose). */
      proposal: z.union([z.literal('current'), z.number().int().min(1)]).default('current'),
      /** The status the harness expects (default 200; e.g. 403 for a refused self-approval; `any` in generated schedules). */
      expect_status: z.union([z.number().int(), z.literal('any')]).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('edit_object'),
      ref: z.string(),
      tenant: z.string().default('acme'),
      data: z.record(z.string(), z.unknown()),
    })
    .strict(),
  z.object({ type: z.literal('set_principals'), tokens: z.record(z.string(), PrincipalSchema.nullable()) }).strict(),
  /** The client's worker dies (SIGKILL; in process: its work is abandoned, the client closed) and a new one starts on its state. */
  z.object({ type: z.literal('restart_worker') }).strict(),
]);
export type TaskStepAction = z.output<typeof TaskStepActionSchema>;

export const TaskScenarioSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9-]+$/),
    description: z.string(),
    objects: z
      .array(z.object({ ref: z.string(), tenant: z.string().default('acme'), data: z.record(z.string(), z.unknown()) }).strict())
      .min(1),
    task_behavior: TaskBehaviorSchema.optional(),
    /** Fault rules on the task routes (`task_create`, `task_read`, `review`, `apply`). */
    faults: z.array(FaultRuleSchema).default([]),
    seed: z.number().int().default(1),
    /** Client operations, submitted at time 0 against each object's version then. */
    ops: z.array(z.object({ task_op_id: z.string(), object_ref: z.string(), input: z.record(z.string(), z.unknown()) }).strict()).min(1),
    steps: z.array(z.object({ at_ms: z.number().int().min(0), action: TaskStepActionSchema }).strict()).default([]),
    /** What the run must end with (besides T1–T5 holding). */
    expect: z.object({ final_state: z.string().optional(), applied_proposal_version: z.number().int().optional() }).strict().default({}),
    /** How long the run may take on the virtual clock. */
    limit_ms: z.number().int().default(120_000),
  })
  .strict();
export type TaskScenario = z.output<typeof TaskScenarioSchema>;
export type TaskScenarioInput = z.input<typeof TaskScenarioSchema>;

const obj = [{ ref: 'invoice-1', data: { amount: 100, status: 'open' } }];
const op = [{ task_op_id: 'op-1', object_ref: 'invoice-1', input: { changes: { status: 'paid' } } }];
type StepInput = NonNullable<TaskScenarioInput['steps']>[number];
const approve = (at_ms: number): StepInput => ({ at_ms, action: { type: 'review', decision: 'approve', op: 'op-1' } });

/** The task scenarios, as data. */
export const TASK_SCENARIO_INPUTS: TaskScenarioInput[] = [
  {
    name: 'apply-lost-answer',
    description:
      'The first apply executes but its answer is lost: the client retries with the same apply key and reports the replayed application; the object changes once.',
    objects: obj,
    ops: op,
    faults: [{ on: 'apply', nth: 1, fault: { type: 'lose_response' } }],
    steps: [approve(2_300)],
    expect: { final_state: 'applied', applied_proposal_version: 1 },
  },
  {
    name: 'no-approval-yet',
    description: 'Review takes a long time: the client keeps waiting (no apply) until the approval comes.',
    objects: obj,
    ops: op,
    steps: [approve(45_000)],
    expect: { final_state: 'applied', applied_proposal_version: 1 },
  },
  {
    name: 'redraft-mid-review',
    description:
      'The object is edited while the task awaits review: a new proposal version; the reviewer approves the new one and the client applies under it.',
    objects: obj,
    ops: op,
    steps: [
      { at_ms: 2_300, action: { type: 'edit_object', ref: 'invoice-1', data: { amount: 120, status: 'open' } } },
      { at_ms: 3_300, action: { type: 'review', decision: 'approve', op: 'op-1', proposal: 1, expect_status: 409 } },
      approve(4_300),
    ],
    expect: { final_state: 'applied', applied_proposal_version: 2 },
  },
  {
    name: 'redraft-after-approval',
    description:
      'The proposal is approved, the apply is held up, the object is edited meanwhile: apply answers stale_object_version; the client waits for an approval of the new proposal.',
    objects: obj,
    ops: op,
    faults: [{ on: 'apply', nth: 1, fault: { type: 'delay', ms: 2_000 } }],
    steps: [
      approve(2_300),
      { at_ms: 4_000, action: { type: 'edit_object', ref: 'invoice-1', data: { amount: 130, status: 'open' } } },
      approve(9_300),
    ],
    expect: { final_state: 'applied', applied_proposal_version: 2 },
  },
  {
    name: 'revoked-approval',
    description:
      'The reviewer approves and at once revokes; an apply sent in between is held at the provider until after the revoke. The client must notice the approval lapsed and not apply until approved again.',
    objects: obj,
    ops: op,
    // The revoke comes right after the approval (steps run in order), and the first apply is held 2 s before the provider
    // checks it: a client that saw the approval in that moment and applied meets the revoke first (409
    // approval_required), never a final task. Without the hold, a real-time client could win the race, and the revoke
    // then met an applied task: the run did not exercise the scenario, depending on how busy the machine was.
    faults: [{ on: 'apply', nth: 1, fault: { type: 'delay', ms: 2_000 } }],
    steps: [approve(2_300), { at_ms: 2_300, action: { type: 'review', decision: 'revoke', op: 'op-1' } }, approve(8_300)],
    expect: { final_state: 'applied', applied_proposal_version: 1 },
  },
  {
    name: 'apply-crash-restart',
    description:
      'The worker dies while its apply is held at the provider; the new worker must carry on with the recorded apply key (in progress, then replayed), never a new one; the object changes once.',
    objects: obj,
    ops: op,
    faults: [{ on: 'apply', nth: 1, fault: { type: 'delay', ms: 3_000 } }],
    steps: [approve(2_300), { at_ms: 4_000, action: { type: 'restart_worker' } }],
    expect: { final_state: 'applied', applied_proposal_version: 1 },
  },
  {
    name: 'self-approval-refused',
    description:
      'The initiator is given the reviewer role and tries to approve its own task (403 self_review_forbidden); a real reviewer then approves.',
    objects: obj,
    ops: op,
    steps: [
      {
        at_ms: 1_000,
        action: {
          type: 'set_principals',
          tokens: {
            'dev-token': { tenant: 'acme', subject: 'agent-1', roles: ['submitter', 'reviewer'] },
            'other-reviewer-token': { tenant: 'globex', subject: 'reviewer-9', roles: ['reviewer'] },
          },
        },
      },
      { at_ms: 2_300, action: { type: 'review', token: 'dev-token', decision: 'approve', op: 'op-1', expect_status: 403 } },
      { at_ms: 2_400, action: { type: 'review', token: 'other-reviewer-token', decision: 'approve', op: 'op-1', expect_status: 404 } },
      approve(6_300),
    ],
    expect: { final_state: 'applied', applied_proposal_version: 1 },
  },
];

export const TASK_SCENARIOS: TaskScenario[] = TASK_SCENARIO_INPUTS.map((s) => TaskScenarioSchema.parse(s));

export function taskScenario(name: string): TaskScenario {
  const s = TASK_SCENARIOS.find((x) => x.name === name);
  if (!s) throw new Error(`no task scenario ${name}`);
  return s;
}
