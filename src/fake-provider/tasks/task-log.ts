import { isoTime } from '../../lib/clock.js';
import type { TaskState } from '../../contract/tasks.js';
import type { AuditRepo, NewAuditEvent } from './audit-repo.js';
import type { TaskRow } from './model.js';
import { canTransition } from './task-machine.js';

/**
 * How every change to a task is written down: an audit event, and a state change only along the task machine's
 * edges (with its `transition` event). Shared by creating, drafting, reviewing and applying.
 */
export class TaskLog {
  constructor(private readonly audit: AuditRepo) {}

  record(taskId: string, at: number, type: string, actor: string, fields: Record<string, unknown> = {}): void {
    this.audit.append(taskId, { at: isoTime(at), type, actor, ...fields } as NewAuditEvent);
  }

  move(t: TaskRow, to: TaskState, cause: string, actor: string, at: number): void {
    if (!canTransition(t.state, to)) throw new Error(`task machine: ${t.state} → ${to} is not a transition`);
    this.record(t.task_id, at, 'transition', actor, { from: t.state, to, cause });
    t.state = to;
    t.updated_at = at;
  }
}
