import { isoTime } from '../../lib/clock.js';
import type { JournalEntry, RequestEntry } from '../../contract/journal.js';
import { encodeEntry, JOB_ID, rowValues, wholeMs } from './journal-codec.js';

/** A request entry as the journal middleware knows it: times as epoch milliseconds, not yet ISO text. */
export type RequestFacts = Omit<RequestEntry, 'seq' | 'type' | 'at' | 'received_at'> & { at: number; received_at: number };

/** A request's optional fields, in the order the journal middleware writes them (`extra` keeps that order). */
const OPTIONAL_REQUEST_FIELDS = [
  'lease_token',
  'listed',
  'task_id',
  'task_state',
  'dialect',
  'custom_ids',
  'file_id',
  'served_sha256',
  'lost_by',
] as const satisfies ReadonlyArray<keyof RequestFacts>;

/** The entry `facts` stand for (what `decodeRow` gives back). */
export function requestEntry(seq: number, f: RequestFacts): JournalEntry {
  return { ...f, seq, type: 'request', at: isoTime(f.at), received_at: isoTime(f.received_at) } as JournalEntry;
}

/**
 * `rowValues(encodeEntry(requestEntry(seq, f)))` without the entry: no ISO text formatted and parsed back, no walk
 * over the entry's keys (a status read's journal row cost more than its SQL insert). The same bytes, the optional
 * fields in `extra` in the order the entry had them; the property test in test/fake-provider holds the two equal.
 */
export function encodeRequest(seq: number, f: RequestFacts): unknown[] {
  // Only whole milliseconds a Date can hold survive the ISO round trip unchanged; anything else takes the entry's way.
  if (!wholeMs(f.at) || !wholeMs(f.received_at)) return rowValues(encodeEntry(requestEntry(seq, f)));
  const extra: Record<string, unknown> = {};
  let extras = 0;
  if (f.fault !== null) {
    extra.fault = f.fault;
    extras++;
  }
  for (const k of OPTIONAL_REQUEST_FIELDS) {
    const v = f[k];
    if (v !== undefined) {
      extra[k] = v;
      extras++;
    }
  }
  let path: string | null = f.path;
  if (f.path.includes(JOB_ID)) {
    extra.path = f.path;
    extras++;
    path = null;
  } else if (f.job_id && f.path.includes(f.job_id)) path = f.path.replace(f.job_id, JOB_ID);
  return [
    seq,
    'request',
    f.at,
    f.at - f.received_at,
    f.request_id,
    f.method,
    path,
    f.route,
    f.tenant,
    f.subject,
    f.idempotency_key,
    f.trace_id,
    f.worker_id,
    f.fingerprint,
    f.effect,
    f.job_id,
    f.status,
    f.code,
    f.delivery === 'delivered' ? null : f.delivery,
    f.job_state,
    f.retry_after,
    f.client_ref,
    extras === 0 ? null : JSON.stringify(extra),
  ];
}
