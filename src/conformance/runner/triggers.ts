import type { JournalEntry } from '../../contract/journal.js';
import type { ScenarioEvent } from '../../scenarios/index.js';

/**
 * Event triggers of scenario actions, evaluated against the journal as it grows. Pure bookkeeping: which
 * operation owns which key and job, and when each event was first seen.
 */
export class EventTracker {
  private readonly keys = new Map<string, string>();
  private readonly jobsOfOp = new Map<string, Set<string>>();
  private readonly seen = new Map<string, number>();
  private readonly actionsDone = new Map<string, number>();
  private readonly pending: JournalEntry[] = [];
  private readonly customIds = new Map<string, string>();
  private readonly refs = new Map<string, string>();
  /** In a keyless profile: the operation whose reference the request body of a job carries (the provider keeps it). */
  ownerOfJob?: (jobId: string) => string | undefined;

  setKey(operationId: string, key: string): void {
    this.keys.set(operationId, key);
    // Entries that arrived before the key was known are matched again.
    const backlog = this.pending.splice(0);
    for (const e of backlog) this.ingest(e);
  }

  /** A dialect operation's batch custom_ids: its creates are recognised by them (no key in the real APIs). */
  setCustomIds(operationId: string, ids: readonly string[]): void {
    for (const c of ids) this.customIds.set(c, operationId);
    const backlog = this.pending.splice(0);
    for (const e of backlog) this.ingest(e);
  }

  /** A profile operation's reference (profile-input.ts): its creates carry it as their client reference. */
  setRef(operationId: string, ref: string): void {
    this.refs.set(ref, operationId);
    const backlog = this.pending.splice(0);
    for (const e of backlog) this.ingest(e);
  }

  /** The client's record of the operation was seen naming its job (read through `show` by the executor). */
  recorded(operationId: string, at: number): void {
    this.mark(`create_recorded:${operationId}`, at);
  }

  /** The provider was seen holding a request (a `delay` fault) of each of `workers`: read by the executor. */
  held(at: number, workers: string[]): void {
    this.mark('request_held', at);
    for (const w of workers) this.mark(`request_held:${w}`, at);
  }

  actionDone(id: string, at: number): void {
    if (!this.actionsDone.has(id)) this.actionsDone.set(id, at);
  }

  private opOf(e: Extract<JournalEntry, { type: 'request' }>): string | undefined {
    for (const [op, key] of this.keys) if (e.idempotency_key === key) return op;
    if (e.client_ref && this.keys.has(e.client_ref)) return e.client_ref;
    for (const c of e.custom_ids ?? []) {
      const op = this.customIds.get(c);
      if (op) return op;
    }
    if (e.client_ref && this.refs.has(e.client_ref)) return this.refs.get(e.client_ref);
    return e.job_id && e.effect === 'created' ? this.ownerOfJob?.(e.job_id) : undefined;
  }

  private mark(name: string, at: number): void {
    if (!this.seen.has(name)) this.seen.set(name, at);
  }

  ingest(e: JournalEntry): void {
    const at = Date.parse(e.at);
    if (e.type === 'request' && e.route === 'create') {
      const op = this.opOf(e);
      if (!op) {
        this.pending.push(e);
        return;
      }
      this.mark(`create_sent:${op}`, at);
      if (e.job_id && (e.effect === 'created' || e.effect === 'replayed')) {
        if (!this.jobsOfOp.has(op)) this.jobsOfOp.set(op, new Set());
        this.jobsOfOp.get(op)!.add(e.job_id);
        if (e.delivery !== 'lost' && e.status >= 200 && e.status < 300) this.mark(`create_answered:${op}`, at);
      }
      if (e.worker_id) this.mark(`worker_acted:${e.worker_id}:${op}`, at);
    } else if (e.type === 'request' && e.worker_id && e.job_id) {
      // Any other request names a job: the operation that job belongs to.
      for (const [op, jobs] of this.jobsOfOp) if (jobs.has(e.job_id)) this.mark(`worker_acted:${e.worker_id}:${op}`, at);
    } else if (e.type === 'transition') {
      for (const [op, jobs] of this.jobsOfOp) if (jobs.has(e.job_id)) this.mark(`job_state:${op}:${e.to}`, at);
    }
  }

  /** When the event was first seen, or undefined. */
  firstSeen(ev: ScenarioEvent): number | undefined {
    switch (ev.event) {
      case 'create_sent':
      case 'create_answered':
      case 'create_recorded':
        return this.seen.get(`${ev.event}:${ev.operation}`);
      case 'job_state':
        return this.seen.get(`job_state:${ev.operation}:${ev.state}`);
      case 'action_done':
        return this.actionsDone.get(ev.action);
      case 'worker_acted':
        return this.seen.get(`worker_acted:${ev.worker}:${ev.operation}`);
      case 'request_held':
        return this.seen.get(ev.worker === undefined ? 'request_held' : `request_held:${ev.worker}`);
    }
  }
}
