import type { JournalEntry, RequestEntry, TransitionEntry, WebhookEntry } from '../../../../src/contract/journal.js';
import type { JobState } from '../../../../src/contract/jobs.js';

type Unseq<T> = Omit<T, 'seq' | 'at'> & { t: number };
/** A request's `received_at` defaults to its time `t` (see build). */
type PendingRequest = Unseq<Omit<RequestEntry, 'received_at'>> & { received_at?: string };
type Pending = PendingRequest | Unseq<TransitionEntry> | Unseq<WebhookEntry>;

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');
export const iso = (t: number) => new Date(t).toISOString();

/**
 * Collects journal entries in any order and numbers them by time at the end, as the provider would have
 * (stable for equal times), so simulated clients can be written as straight-line code.
 */
export class JournalBuilder {
  private pending: Pending[] = [];
  private n = 0;

  request(t: number, fields: Partial<RequestEntry> & Pick<RequestEntry, 'method' | 'path' | 'route'>): void {
    this.pending.push({
      t,
      type: 'request',
      request_id: `req_${++this.n}`,
      tenant: 'acme',
      subject: 'agent-1',
      idempotency_key: null,
      trace_id: null,
      worker_id: 'worker-1',
      fingerprint: null,
      effect: 'read',
      job_id: null,
      status: 200,
      code: null,
      delivery: 'delivered',
      fault: null,
      job_state: null,
      retry_after: null,
      client_ref: null,
      ...fields,
    });
  }

  transition(t: number, job_id: string, from: JobState | null, to: JobState, cause = 'scheduled'): void {
    this.pending.push({ t, type: 'transition', job_id, tenant: 'acme', from, to, cause });
  }

  webhook(t: number, job_id: string, event_type: string, outcome: WebhookEntry['outcome'] = 'delivered', attempt = 1): void {
    this.pending.push({
      t,
      type: 'webhook',
      event_id: `evt_${++this.n}`,
      event_type,
      job_id,
      url: 'http://127.0.0.1:9000/',
      attempt,
      outcome,
      status: outcome === 'delivered' ? 200 : null,
      error: null,
      fault: outcome === 'dropped' ? { rule_id: 'r1', type: 'drop' } : null,
    });
  }

  build(): JournalEntry[] {
    return this.pending
      .map((p, i) => ({ p, i }))
      .sort((a, b) => a.p.t - b.p.t || a.i - b.i)
      .map(({ p }, k) => {
        const { t, ...rest } = p;
        const times = rest.type === 'request' ? { received_at: iso(t) } : {};
        return { seq: k + 1, at: iso(t), ...times, ...rest } as JournalEntry;
      });
  }
}
