import type { RequestEntry } from '../../contract/journal.js';
import type { TaskEvidence } from './evidence.js';

export const TASK_INVARIANTS = {
  T1: "apply-once: each object changed at most once per approved proposal; the reported application is the provider's",
  T2: 'no-apply-without-approval: no apply sent while the task had no approval the client could know of',
  T3: 'redraft-followed: after a redraft no apply under the old approval; a new approval first',
  T4: 'no-foreign-or-revoked-approval: never apply under an approval by another tenant, the initiator, a revoked one or one of a stale proposal',
  T5: 'apply-key-discipline: one apply key per task, kept across retries, never the create key',
} as const;
export type TaskInvariantId = keyof typeof TASK_INVARIANTS;
export const TASK_INVARIANT_IDS = Object.keys(TASK_INVARIANTS) as TaskInvariantId[];

export interface TaskInvariantResult {
  id: TaskInvariantId;
  title: string;
  /** `vacuous`: nothing in the evidence for it to judge (e.g. no apply was ever sent). */
  status: 'pass' | 'fail' | 'vacuous';
  violations: string[];
}
export interface TaskVerdict {
  ok: boolean;
  results: Record<TaskInvariantId, TaskInvariantResult>;
  failed: TaskInvariantId[];
}

type Req = RequestEntry;
const TASK_ROUTES = new Set(['task_create', 'task_read', 'review', 'apply']);

/** Per task: the entries about it, in journal order. */
interface TaskLine {
  task_id: string;
  tenant: string;
  object_ref: string | null;
  initiator: string | null;
  createSeq: number;
  createKeys: Set<string>;
  entries: Req[];
}

function linesOf(ev: TaskEvidence): Map<string, TaskLine> {
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

const isClient = (ev: TaskEvidence, e: Req) => e.tenant === ev.client.tenant && e.subject === ev.client.subject;
const clientApplies = (ev: TaskEvidence, l: TaskLine) => l.entries.filter((e) => e.route === 'apply' && isClient(ev, e));
const ambiguous = (e: Req) => e.delivery !== 'delivered' || e.status >= 500;

/** An apply that replays the key of an earlier apply whose answer was lost or ambiguous: a reconciliation, not a new decision. */
function isReconcile(applies: Req[], a: Req): boolean {
  return applies.some((p) => p.seq < a.seq && p.idempotency_key === a.idempotency_key && ambiguous(p));
}

/**
 * Whether an apply at `a` was sent after a lapse the client could know of, with no approval since. A lapse after the
 * client's last look at the task, which then showed `approved`, is a race the client could not see: not held against it.
 */
function appliedOverLapse(ev: TaskEvidence, l: TaskLine, a: Req, lapses: number[]): number | null {
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

function t2(ev: TaskEvidence, lines: Map<string, TaskLine>): string[] {
  const v: string[] = [];
  for (const l of lines.values()) {
    const applies = clientApplies(ev, l);
    // Lapses of approval by review: creation (none yet), revoke or reject, and an apply refused for want of one.
    const lapses = [
      l.createSeq,
      ...l.entries.filter((e) => e.route === 'review' && e.effect === 'reviewed' && e.task_state !== 'approved').map((e) => e.seq),
      ...l.entries.filter((e) => e.route === 'apply' && e.code === 'approval_required' && e.delivery === 'delivered').map((e) => e.seq),
    ];
    for (const a of applies) {
      if (isReconcile(applies, a)) continue;
      const lapse = appliedOverLapse(ev, l, a, lapses);
      if (lapse !== null) v.push(`task ${l.task_id}: apply (seq ${a.seq}) sent with no approval since seq ${lapse}`);
    }
  }
  return v;
}

function redraftSeqs(ev: TaskEvidence, l: TaskLine, lines: Map<string, TaskLine>): number[] {
  const edits = ev.harness
    .filter(
      (h) => h.kind === 'put_object' && h.object_ref === l.object_ref && (h.tenant ?? l.tenant) === l.tenant && h.after_seq >= l.createSeq,
    )
    .map((h) => h.after_seq + 0.5);
  const stale = l.entries.filter((e) => e.route === 'apply' && e.code === 'stale_object_version').map((e) => e.seq);
  const others = [...lines.values()]
    .filter((o) => o.task_id !== l.task_id && o.object_ref === l.object_ref && o.tenant === l.tenant)
    .flatMap((o) => o.entries.filter((e) => e.route === 'apply' && e.effect === 'applied').map((e) => e.seq));
  return [...edits, ...stale, ...others].filter((s) => s > l.createSeq);
}

function t3(ev: TaskEvidence, lines: Map<string, TaskLine>): { v: string[]; judged: boolean } {
  const v: string[] = [];
  let judged = false;
  for (const l of lines.values()) {
    const redrafts = redraftSeqs(ev, l, lines);
    if (redrafts.length === 0) continue;
    const applies = clientApplies(ev, l);
    for (const a of applies) {
      if (a.seq < Math.min(...redrafts)) continue;
      judged = true;
      if (isReconcile(applies, a)) continue;
      const lapse = appliedOverLapse(ev, l, a, redrafts);
      if (lapse !== null)
        v.push(`task ${l.task_id}: apply (seq ${a.seq}) after a redraft (at seq ${Math.floor(lapse)}) with no new approval`);
    }
    // The client's own history: after it saw a redraft, it never went to applying under an approval of an older proposal.
    for (const op of ev.client.ops.filter((o) => o.task_id === l.task_id)) {
      let seen = 0;
      for (const h of op.history) {
        const pv = typeof h.proposal_version === 'number' ? h.proposal_version : null;
        if (pv !== null && h.to === 'waiting') seen = Math.max(seen, pv);
        const ap = h.approval;
        if (h.to === 'applying' && ap && seen > 1) {
          judged = true;
          if (ap.proposal_version < seen)
            v.push(
              `op ${op.task_op_id}: went to applying under an approval of proposal ${ap.proposal_version} after seeing proposal ${seen}`,
            );
        }
      }
    }
  }
  return { v, judged };
}

function t4(ev: TaskEvidence, lines: Map<string, TaskLine>): string[] {
  const v: string[] = [];
  for (const l of lines.values()) {
    for (const a of l.entries.filter((e) => e.route === 'apply' && e.effect === 'applied')) {
      const review = [...l.entries].reverse().find((e) => e.route === 'review' && e.effect === 'reviewed' && e.seq < a.seq);
      if (review?.task_state !== 'approved') v.push(`task ${l.task_id}: applied (seq ${a.seq}) when the last review was not an approval`);
      else if (review.tenant !== l.tenant) v.push(`task ${l.task_id}: applied under an approval from tenant ${review.tenant}`);
      else if (review.subject === l.initiator) v.push(`task ${l.task_id}: applied under the initiator's own approval`);
    }
  }
  for (const t of ev.provider.tasks.filter((x) => x.state === 'applied')) {
    const r = t.review;
    const p = t.result?.proposal;
    if (r?.decision !== 'approved') v.push(`task ${t.task_id}: applied, its review is ${r?.decision ?? 'none'}`);
    else if (r.reviewer === t.initiator) v.push(`task ${t.task_id}: applied under the initiator's approval`);
    else if (!p || r.proposal_version !== p.proposal_version || r.proposal_sha256 !== p.sha256)
      v.push(`task ${t.task_id}: applied under an approval of another proposal`);
  }
  for (const op of ev.client.ops) {
    op.history.forEach((h, i) => {
      if (h.to !== 'applying' || h.from === 'applying') return;
      const ap = h.approval;
      if (!ap) {
        v.push(`op ${op.task_op_id}: decided to apply (history ${i + 1}) without recording the approval it relied on`);
        return;
      }
      const cur: { proposal_version?: number | null; sha256?: string | null; initiator?: string | null } = h.current ?? {};
      const why =
        ap.decision !== 'approved'
          ? `a ${ap.decision} review`
          : ap.reviewer === cur.initiator
            ? "the initiator's own review"
            : ap.proposal_version !== cur.proposal_version || ap.proposal_sha256 !== cur.sha256
              ? `an approval of proposal ${ap.proposal_version} while proposal ${cur.proposal_version} was current`
              : null;
      if (why) v.push(`op ${op.task_op_id}: decided to apply (history ${i + 1}) under ${why}`);
      else if (
        op.task_id &&
        !ev.journal.some(
          (e) =>
            e.type === 'request' &&
            e.route === 'review' &&
            e.task_id === op.task_id &&
            e.effect === 'reviewed' &&
            e.task_state === 'approved' &&
            e.subject === ap.reviewer &&
            e.tenant === ev.client.tenant,
        )
      ) {
        v.push(`op ${op.task_op_id}: relied on an approval by ${ap.reviewer} that no review of this tenant gave`);
      }
    });
  }
  return v;
}

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

/** The pure judge: T1–T5 over a run's evidence. */
export function checkTasks(ev: TaskEvidence): TaskVerdict {
  const lines = linesOf(ev);
  const anyApply = [...lines.values()].some((l) => clientApplies(ev, l).length > 0);
  const anyApplied = [...lines.values()].some((l) => l.entries.some((e) => e.route === 'apply' && e.effect === 'applied'));
  const t3r = t3(ev, lines);
  const raw: Record<TaskInvariantId, { v: string[]; judged: boolean }> = {
    T1: { v: t1(ev, lines), judged: lines.size > 0 },
    T2: { v: t2(ev, lines), judged: anyApply },
    T3: t3r,
    T4: { v: t4(ev, lines), judged: anyApplied || ev.client.ops.some((o) => o.history.some((h) => h.to === 'applying')) },
    T5: { v: t5(ev, lines), judged: anyApply },
  };
  const results = {} as Record<TaskInvariantId, TaskInvariantResult>;
  for (const id of TASK_INVARIANT_IDS) {
    const r = raw[id];
    results[id] = { id, title: TASK_INVARIANTS[id], status: r.v.length > 0 ? 'fail' : r.judged ? 'pass' : 'vacuous', violations: r.v };
  }
  const failed = TASK_INVARIANT_IDS.filter((id) => results[id].status === 'fail');
  return { ok: failed.length === 0, results, failed };
}
