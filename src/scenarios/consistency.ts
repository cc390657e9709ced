import type { z } from 'zod';
import { canonicalJson } from '../lib/canonical-json.js';
import type { HarnessAction, ScenarioEvent } from './actions.js';

/** The parsed fields the cross-checks look at (the schema's output before refinement). */
interface ScenarioShape {
  workload: Array<{ operation_id: string; input: Record<string, unknown> }>;
  actions: HarnessAction[];
  workers: number;
  lease_ms: number;
}

/**
 * Checks that span fields, so a scenario that parses is one a runner can actually carry out: every reference
 * resolves, every action has exactly one trigger, a pause outlasts the lease. Issues carry the exact path.
 */
export function checkScenarioConsistency(s: ScenarioShape, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });

  const operations = new Set<string>();
  s.workload.forEach((op, i) => {
    if (operations.has(op.operation_id)) issue(['workload', i, 'operation_id'], `duplicate operation '${op.operation_id}'`);
    operations.add(op.operation_id);
  });
  // Operations that submit_changed brings in count as known, wherever they appear in the list.
  s.actions.forEach((a, i) => {
    if (a.type !== 'submit_changed') return;
    if (operations.has(a.new_operation_id)) issue(['actions', i, 'new_operation_id'], `operation '${a.new_operation_id}' already exists`);
    operations.add(a.new_operation_id);
  });

  const workers = new Set(Array.from({ length: s.workers }, (_, i) => `worker-${i + 1}`));
  for (const a of s.actions) if (a.type === 'start_worker') workers.add(a.worker);

  const actionIds = new Set<string>();
  s.actions.forEach((a, i) => {
    if (a.id === undefined) return;
    if (actionIds.has(a.id)) issue(['actions', i, 'id'], `duplicate action id '${a.id}'`);
    actionIds.add(a.id);
  });

  s.actions.forEach((a, i) => {
    const at = ['actions', i];
    if ((a.at_ms === undefined) === (a.after === undefined)) issue(at, 'give exactly one of at_ms or after');
    const checkEvent = (ev: ScenarioEvent | undefined, field: string) => {
      if (ev && 'operation' in ev && !operations.has(ev.operation)) {
        issue([...at, field, 'operation'], `unknown operation '${ev.operation}'`);
      }
      if (ev?.event === 'action_done' && (!actionIds.has(ev.action) || ev.action === a.id)) {
        issue([...at, field, 'action'], `no other action has id '${ev.action}'`);
      }
      if (ev?.event === 'worker_acted' && !workers.has(ev.worker)) {
        issue([...at, field, 'worker'], `worker '${ev.worker}' is never started`);
      }
    };
    checkEvent(a.after, 'after');
    if ((a.type === 'cancel' || a.type === 'submit_changed') && !operations.has(a.operation)) {
      issue([...at, 'operation'], `unknown operation '${a.operation}'`);
    }
    if ((a.type === 'kill_worker' || a.type === 'pause_worker') && !workers.has(a.worker)) {
      issue([...at, 'worker'], `worker '${a.worker}' is never started`);
    }
    if (a.type === 'pause_worker' && a.resume_after_ms <= s.lease_ms) {
      issue([...at, 'resume_after_ms'], `a pause must outlast the lease (${s.lease_ms} ms) for another worker to take over`);
    }
    if (a.type === 'pause_worker') {
      checkEvent(a.resume_after, 'resume_after');
      if (a.resume_after && a.resume_by_ms === undefined) issue([...at, 'resume_by_ms'], 'a pause until an event needs a bound');
      if (a.resume_by_ms !== undefined && a.resume_by_ms < a.resume_after_ms) {
        issue([...at, 'resume_by_ms'], `the bound must not come before the minimum pause (${a.resume_after_ms} ms)`);
      }
    }
    if (a.type === 'submit_changed') {
      const original = s.workload.find((o) => o.operation_id === a.operation);
      if (original && canonicalJson(original.input) === canonicalJson(a.input)) {
        issue([...at, 'input'], 'the changed input equals the original: nothing would be refused');
      }
    }
  });
}
