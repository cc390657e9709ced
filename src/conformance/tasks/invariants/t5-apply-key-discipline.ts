import type { TaskEvidence } from '../evidence.js';
import type { TaskCheck } from './task-check.js';
import { clientApplies, type TaskLine } from '../task-lines.js';

function t5(ev: TaskEvidence, lines: Map<string, TaskLine>): string[] {
  const v: string[] = [];
  const createKeys = new Set([...ev.client.ops.map((o) => o.create_key), ...[...lines.values()].flatMap((l) => [...l.createKeys])]);
  for (const l of lines.values()) {
    const keys = [...new Set(clientApplies(ev, l).map((e) => e.idempotency_key ?? '(none)'))];
    if (keys.length > 1) v.push(`task ${l.task_id}: ${keys.length} different apply keys (${keys.join(', ')})`);
    for (const k of keys) if (createKeys.has(k)) v.push(`task ${l.task_id}: apply key ${k} is a create key`);
    const op = ev.client.ops.find((o) => o.task_id === l.task_id);
    if (op && keys.length === 1 && op.apply_key !== keys[0])
      v.push(`op ${op.task_op_id}: recorded apply key ${op.apply_key} is not the key sent (${keys[0]})`);
  }
  return v;
}

/** T5 apply-key-discipline: one apply key per task, kept across retries, never the create key. */
export const T5_APPLY_KEY_DISCIPLINE: TaskCheck = {
  id: 'T5',
  judge: (ev, lines) => ({ violations: t5(ev, lines), judged: [...lines.values()].some((l) => clientApplies(ev, l).length > 0) }),
};
