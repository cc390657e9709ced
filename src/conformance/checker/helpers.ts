import type { RequestEntry } from '../../contract/journal.js';
import type { JobState } from '../../contract/jobs.js';
import { isFinalState, type HistoryEntry, type OperationRecord, type OperationState } from '../../contract/client-protocol.js';
import type { Failure } from './verdict.js';

/** Shared small helpers of the invariant modules. */

export function ms(iso: string): number {
  return Date.parse(iso);
}

/** The client saw the answer. A `lost` answer is like Jepsen's :info: it happened, but the client cannot know. */
export function delivered(r: RequestEntry): boolean {
  return r.delivery !== 'lost';
}

/**
 * Whether the entry's `at` can stand for when the client sent it. A held request is journaled when it is answered,
 * after an unknown wait, so "sent after X" cannot be told from its time: one still awaited (`delayed`), or one whose
 * answer was lost as a hang (it may have been held; judged the lenient way).
 */
export function sendTimeKnown(r: RequestEntry): boolean {
  return Boolean(r.received_at) || (r.delivery !== 'delayed' && r.lost_by !== 'hang');
}

/** When the client sent the request: its arrival at the provider (`at` is when it was answered, later under a delay). */
export function sentAt(r: RequestEntry): number {
  return ms(r.received_at ?? r.at);
}

/** `"abc"` (Structured Field string) and `abc` name the same key (provider-api.md). */
export function normKey(key: string | null | undefined): string | null {
  if (key == null) return null;
  return key.length >= 2 && key.startsWith('"') && key.endsWith('"') ? key.slice(1, -1) : key;
}

export const TERMINAL_ANSWER_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled', 'expired'];

/** The history entry that first entered a final state, if any. */
export function finalEntry(record: OperationRecord | undefined): HistoryEntry | undefined {
  return record?.history.find((h) => isFinalState(h.to));
}

export function isFinal(record: OperationRecord | undefined): boolean {
  return record !== undefined && isFinalState(record.state);
}

/** Record states that report each provider outcome truthfully (a lost cancel race reports what happened). */
export function statesReporting(job: JobState): readonly OperationState[] {
  switch (job) {
    case 'succeeded':
      return ['succeeded', 'result_unavailable', 'result_validation_failed', 'result_timed_out'];
    case 'failed':
    case 'expired':
      return ['failed'];
    case 'cancelled':
      return ['cancelled'];
    default:
      return [];
  }
}

export function iso(t: number): string {
  return Number.isFinite(t) ? new Date(t).toISOString() : String(t);
}

export function describeRequest(r: RequestEntry): string {
  return `#${r.seq} ${r.method} ${r.path} → ${r.status}${r.delivery === 'lost' ? ' (answer lost)' : ''}${r.worker_id ? ` by ${r.worker_id}` : ''}`;
}

export function failure(
  operation_id: string,
  explanation: string,
  seqs: readonly number[] = [],
  history: readonly HistoryEntry[] = [],
): Failure {
  return { operation_id, explanation, evidence: { journal_seqs: [...new Set(seqs)].sort((a, b) => a - b), history: [...history] } };
}

/** The job states an answer showed the client: the job of a read, cancel or create, and every job a find listed. */
export function shownStates(r: RequestEntry, jobId: string): string[] {
  const states: string[] = [];
  if (r.job_id === jobId && r.job_state !== null) states.push(r.job_state);
  if (r.route === 'list' && r.status === 200) for (const l of r.listed ?? []) if (l.job_id === jobId) states.push(l.state);
  return states;
}

/**
 * When the worker could first read this answer: when it came, or — if it came while the harness had the worker
 * paused (SIGSTOP) — when the worker resumed (Infinity if it never did). A resumed process runs the timers that came
 * due during the pause before it reads its sockets, so a request whose timeout passed meanwhile is given up on first:
 * the bytes arrived, the client may never have read them.
 */
export function readableAt(r: RequestEntry, harness: ReadonlyArray<{ at: string; type: string; worker_id?: string }>): number {
  const came = ms(r.at);
  if (!r.worker_id) return came;
  let pausedSince: number | null = null;
  for (const h of harness) {
    if (h.worker_id !== r.worker_id) continue;
    const t = ms(h.at);
    if (h.type === 'pause' && t <= came) pausedSince = t;
    else if (h.type === 'resume' && pausedSince !== null) {
      if (t > came) return t;
      pausedSince = null;
    }
  }
  return pausedSince === null ? came : Number.POSITIVE_INFINITY;
}

/** The answer came while its worker was paused: whether the client ever read it cannot be known (readableAt). */
export function cameWhilePaused(r: RequestEntry, harness: ReadonlyArray<{ at: string; type: string; worker_id?: string }>): boolean {
  return readableAt(r, harness) !== ms(r.at);
}

/**
 * Whether the worker that got this answer lived to act on it. An answer delivered to a worker the harness killed
 * before that worker sent anything else is like Jepsen's `:info`: the bytes arrived, the process may never have read
 * them, so the client as a whole cannot be held to know it.
 */
export function reachedALiveWorker(
  r: RequestEntry,
  requests: readonly RequestEntry[],
  harness: ReadonlyArray<{ at: string; type: string; worker_id?: string }>,
  windowMs: number,
): boolean {
  if (!r.worker_id) return true;
  const answered = ms(r.at);
  const kill = harness.find(
    (h) => h.type === 'kill' && h.worker_id === r.worker_id && ms(h.at) >= answered && ms(h.at) - answered <= windowMs,
  );
  if (!kill) return true;
  return requests.some((q) => q.worker_id === r.worker_id && q.seq > r.seq && ms(q.received_at ?? q.at) <= ms(kill.at));
}
