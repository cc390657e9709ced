import type { TaskEvidence } from '../evidence.js';
import type { TaskCheck } from './task-check.js';
import type { TaskLine } from '../task-lines.js';

function t1(ev: TaskEvidence, lines: Map<string, TaskLine>): string[] {
  const v: string[] = [];
  for (const l of lines.values()) {
    const applied = l.entries.filter((e) => e.route === 'apply' && e.effect === 'applied');
    if (applied.length > 1)
      v.push(`task ${l.task_id}: ${applied.length} apply requests changed the object (seq ${applied.map((e) => e.seq).join(', ')})`);
  }
  for (const o of ev.provider.objects) {
    const puts = ev.harness.filter(
      (h) => h.kind === 'put_object' && h.object_ref === o.object_ref && (h.tenant ?? o.tenant) === o.tenant,
    ).length;
    const applies = [...lines.values()]
      .filter((l) => l.object_ref === o.object_ref && l.tenant === o.tenant)
      .reduce((n, l) => n + l.entries.filter((e) => e.route === 'apply' && e.effect === 'applied').length, 0);
    if (o.version !== puts + applies)
      v.push(`object ${o.object_ref}: version ${o.version}, expected ${puts} edits + ${applies} applications = ${puts + applies}`);
  }
  for (const row of ev.client.ops) {
    const pt = row.task_id ? ev.provider.tasks.find((t) => t.task_id === row.task_id) : undefined;
    if (row.state === 'applied') {
      if (pt?.state !== 'applied' || !pt.application)
        v.push(`op ${row.task_op_id}: reported applied, the provider's task is ${pt?.state ?? 'unknown'}`);
      else if (
        !row.application ||
        row.application.new_version !== pt.application.new_version ||
        row.application.applied_at !== pt.application.applied_at
      ) {
        v.push(
          `op ${row.task_op_id}: reported application ${JSON.stringify(row.application)} differs from the provider's ${JSON.stringify(pt.application)}`,
        );
      }
    } else if (pt?.state === 'applied' && ['rejected', 'failed', 'apply_failed'].includes(row.state)) {
      v.push(`op ${row.task_op_id}: reported ${row.state}, but the provider applied the task`);
    }
  }
  return v;
}

/** T1 apply-once: each object changed at most once per approved proposal; the reported application is the provider's. */
export const T1_APPLY_ONCE: TaskCheck = {
  id: 'T1',
  judge: (ev, lines) => ({ violations: t1(ev, lines), judged: lines.size > 0 }),
};
