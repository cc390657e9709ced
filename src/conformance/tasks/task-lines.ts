import type { RequestEntry } from '../../contract/journal.js';
import type { TaskEvidence } from './evidence.js';

/** What the task invariants share: the journal's request entries grouped per task, and the lapse rules. */
export type Req = RequestEntry;
const TASK_ROUTES = new Set(['task_create', 'task_read', 'review', 'apply']);

/** Per task: the entries about it, in journal order. */
export interface TaskLine {
  task_id: string;
  tenant: string;
  object_ref: string | null;
  initiator: string | null;
  createSeq: number;
  createKeys: Set<string>;
  entries: Req[];
}

export function linesOf(ev: TaskEvidence): Map<string, TaskLine> {
  const lines = new Map<string, TaskLine>();
  const reqs = ev.journal.filter((e) => e.type === 'request' && e.route !== null && TASK_ROUTES.has(e.route)).sort((a, b) => a.seq - b.seq);
  for (const e of reqs) {
    if (!e.task_id) continue;
    let l = lines.get(e.task_id);
    if (!l) {
      const pt = ev.provider.tasks.find((t) => t.task_id === e.task_id);
      l = {
        task_id: e.task_id,
        tenant: pt?.tenant ?? e.tenant ?? '',
        object_ref: pt?.object_ref ?? null,
        initiator: pt?.initiator ?? null,
        createSeq: e.seq,
        createKeys: new Set(),
        entries: [],
      };
      lines.set(e.task_id, l);
    }
    if (e.route === 'task_create') {
      if (e.effect === 'created') {
        l.createSeq = e.seq;
        l.initiator ??= e.subject;
      }
      if (e.idempotency_key) l.createKeys.add(e.idempotency_key);
    }
    l.entries.push(e);
  }
  return lines;
}

export const isClient = (ev: TaskEvidence, e: Req) => e.tenant === ev.client.tenant && e.subject === ev.client.subject;
export const clientApplies = (ev: TaskEvidence, l: TaskLine) => l.entries.filter((e) => e.route === 'apply' && isClient(ev, e));
export const ambiguous = (e: Req) => e.delivery !== 'delivered' || e.status >= 500;

/** An apply that replays the key of an earlier apply whose answer was lost or ambiguous: a reconciliation, not a new decision. */
export function isReconcile(applies: Req[], a: Req): boolean {
  return applies.some((p) => p.seq < a.seq && p.idempotency_key === a.idempotency_key && ambiguous(p));
}

/**
 * Whether an apply at `a` was sent after a lapse the client could know of, with no approval since. A lapse after the
 * client's last look at the task, which then showed `approved`, is a race the client could not see: not held against it.
 */
export function appliedOverLapse(ev: TaskEvidence, l: TaskLine, a: Req, lapses: number[]): number | null {
  const lapse = Math.max(-1, ...lapses.filter((s) => s < a.seq));
  if (lapse < 0) return null;
  const approvals = l.entries.filter(
    (e) => e.route === 'review' && e.effect === 'reviewed' && e.task_state === 'approved' && e.seq < a.seq && e.seq > lapse,
  );
  if (approvals.length > 0) return null;
  const looks = l.entries.filter((e) => isClient(ev, e) && e.seq < a.seq && e.delivery === 'delivered' && e.task_state);
  const last = looks[looks.length - 1];
  if (last && last.seq < lapse && last.task_state === 'approved') return null;
  return lapse;
}
