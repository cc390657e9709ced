import type { TaskHistoryRecord, TaskRecord } from '../../contract/task-client-protocol.js';
import type { TaskHistoryEntry, TaskOpRow } from './types.js';

/** The stored row and history as client-protocol.md's task record (`client task show`). */
export function toTaskRecord(row: TaskOpRow, history: TaskHistoryEntry[], actor: string): TaskRecord {
  return {
    task_op_id: row.task_op_id,
    state: row.state,
    task_id: row.task_id,
    object_ref: row.object_ref,
    object_version: row.object_version,
    create_key: row.create_key,
    apply_key: row.apply_key,
    trace_id: row.trace_id,
    application: row.application ? { ...row.application } : null,
    reason: row.reason,
    history: history.map((h): TaskHistoryRecord => {
      const e = h.evidence;
      const out: TaskHistoryRecord = { at: h.at, actor, from: h.from, to: h.to, cause: h.cause };
      if (typeof e.proposal_version === 'number') out.proposal_version = e.proposal_version;
      if (e.approval) out.approval = e.approval as TaskHistoryRecord['approval'];
      if (e.current) out.current = e.current as TaskHistoryRecord['current'];
      if (typeof e.apply_key === 'string') out.apply_key = e.apply_key;
      return out;
    }),
  };
}
