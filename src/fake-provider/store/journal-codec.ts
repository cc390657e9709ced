import { isoTime } from '../../lib/clock.js';
import { RequestEntrySchema, TransitionEntrySchema, WebhookEntrySchema, type JournalEntry } from '../../contract/journal.js';

/**
 * How a journal entry is laid out in its SQLite row (migration 2). The JSON of 0.1.0 cost ~640 bytes per entry on
 * disk (keys repeated in every row, ISO times, an index nobody read); typed columns with SQLite's variable-length
 * integers and free NULLs bring a status read to ~150. Rules, each undone exactly by `decodeRow`:
 * - times are integer milliseconds; `received_at` is stored as its distance to `at` (0 costs no byte);
 * - `path` has the entry's own job id replaced by `{job_id}` (a real path cannot hold `{`, URLs escape it; one
 *   that does anyway is kept in `extra`);
 * - `delivery` is NULL when `delivered`, `fault` NULL when none;
 * - everything else of a request, and every field of a transition or webhook entry beyond `job_id`/`tenant`, goes
 *   to `extra` (JSON, NULL when empty), so new optional fields need no migration.
 * An `at` that an ISO round trip would not reproduce byte for byte is kept in `extra` as written.
 */
export const JOURNAL_COLUMNS = [
  'seq',
  'type',
  'at',
  'received_ms',
  'request_id',
  'method',
  'path',
  'route',
  'tenant',
  'subject',
  'idempotency_key',
  'trace_id',
  'worker_id',
  'fingerprint',
  'effect',
  'job_id',
  'status',
  'code',
  'delivery',
  'job_state',
  'retry_after',
  'client_ref',
  'extra',
] as const;

export type JournalRow = {
  seq: number;
  type: string;
  at: number;
  received_ms: number | null;
  request_id: string | null;
  method: string | null;
  path: string | null;
  route: string | null;
  tenant: string | null;
  subject: string | null;
  idempotency_key: string | null;
  trace_id: string | null;
  worker_id: string | null;
  fingerprint: string | null;
  effect: string | null;
  job_id: string | null;
  status: number | null;
  code: string | null;
  delivery: string | null;
  job_state: string | null;
  retry_after: number | null;
  client_ref: string | null;
  extra: string | null;
};

/** Request fields that have their own column (the rest go to `extra`); `received_at` is stored as `received_ms`. */
const REQUEST_COLUMNS = new Set<string>(JOURNAL_COLUMNS.filter((c) => c !== 'extra').map((c) => (c === 'received_ms' ? 'received_at' : c)));
const OTHER_COLUMNS = new Set(['seq', 'type', 'at', 'job_id', 'tenant']);
/** What a path holds in place of its entry's own job id. */
export const JOB_ID = '{job_id}';

function timeMs(iso: string, extra: Record<string, unknown>, key: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || isoTime(ms) !== iso) {
    extra[key] = iso;
    return Number.isNaN(ms) ? 0 : ms;
  }
  return ms;
}

export function encodeEntry(e: JournalEntry): JournalRow {
  const extra: Record<string, unknown> = {};
  const src = e as unknown as Record<string, unknown>;
  const at = timeMs(e.at, extra, 'at');
  if (e.type !== 'request') {
    for (const [k, v] of Object.entries(src)) if (!OTHER_COLUMNS.has(k) && v !== undefined) extra[k] = v;
    const tenant = e.type === 'transition' ? e.tenant : null;
    return {
      seq: e.seq,
      type: e.type,
      at,
      received_ms: null,
      request_id: null,
      method: null,
      path: null,
      route: null,
      tenant,
      subject: null,
      idempotency_key: null,
      trace_id: null,
      worker_id: null,
      fingerprint: null,
      effect: null,
      job_id: e.job_id,
      status: null,
      code: null,
      delivery: null,
      job_state: null,
      retry_after: null,
      client_ref: null,
      extra: Object.keys(extra).length ? JSON.stringify(extra) : null,
    };
  }
  for (const [k, v] of Object.entries(src)) if (!REQUEST_COLUMNS.has(k) && v !== undefined && !(k === 'fault' && v === null)) extra[k] = v;
  const received = timeMs(e.received_at, extra, 'received_at');
  let path: string | null = e.path;
  if (e.path.includes(JOB_ID)) {
    extra.path = e.path;
    path = null;
  } else if (e.job_id && e.path.includes(e.job_id)) path = e.path.replace(e.job_id, JOB_ID);
  return {
    seq: e.seq,
    type: 'request',
    at,
    received_ms: at - received,
    request_id: e.request_id,
    method: e.method,
    path,
    route: e.route,
    tenant: e.tenant,
    subject: e.subject,
    idempotency_key: e.idempotency_key,
    trace_id: e.trace_id,
    worker_id: e.worker_id,
    fingerprint: e.fingerprint,
    effect: e.effect,
    job_id: e.job_id,
    status: e.status,
    code: e.code,
    delivery: e.delivery === 'delivered' ? null : e.delivery,
    job_state: e.job_state,
    retry_after: e.retry_after,
    client_ref: e.client_ref,
    extra: Object.keys(extra).length ? JSON.stringify(extra) : null,
  };
}

const REQUEST_KEYS = Object.keys(RequestEntrySchema.shape);
const TRANSITION_KEYS = Object.keys(TransitionEntrySchema.shape);
const WEBHOOK_KEYS = Object.keys(WebhookEntrySchema.shape);

/**
 * The entry with its keys in the schema's order, as a parse would give it: a live run's judge takes decoded entries
 * without parsing them, and reports and fingerprints print them as JSON. Keys the schema does not name come last.
 */
function inSchemaOrder(order: readonly string[], o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) if (k in o) out[k] = o[k];
  for (const k in o) if (!(k in out)) out[k] = o[k];
  return out;
}

export function decodeRow(r: JournalRow): JournalEntry {
  const extra = r.extra === null ? {} : (JSON.parse(r.extra) as Record<string, unknown>);
  const at = isoTime(r.at);
  if (r.type !== 'request') {
    const base =
      r.type === 'transition'
        ? { seq: r.seq, at, type: r.type, job_id: r.job_id, tenant: r.tenant }
        : { seq: r.seq, at, type: r.type, job_id: r.job_id };
    return inSchemaOrder(r.type === 'transition' ? TRANSITION_KEYS : WEBHOOK_KEYS, { ...base, ...extra }) as JournalEntry;
  }
  const path = r.job_id !== null && r.path !== null ? r.path.replace(JOB_ID, r.job_id) : r.path;
  const entry = {
    seq: r.seq,
    at,
    type: 'request',
    received_at: isoTime(r.at - (r.received_ms ?? 0)),
    request_id: r.request_id,
    method: r.method,
    path,
    route: r.route,
    tenant: r.tenant,
    subject: r.subject,
    idempotency_key: r.idempotency_key,
    trace_id: r.trace_id,
    worker_id: r.worker_id,
    fingerprint: r.fingerprint,
    effect: r.effect,
    job_id: r.job_id,
    status: r.status,
    code: r.code,
    delivery: r.delivery ?? 'delivered',
    fault: null,
    job_state: r.job_state,
    retry_after: r.retry_after,
    client_ref: r.client_ref,
    ...extra,
  };
  // Without extra fields the columns above are already in the schema's order.
  return (r.extra === null ? entry : inSchemaOrder(REQUEST_KEYS, entry)) as JournalEntry;
}

/**
 * Whether an epoch-ms time survives the ISO round trip unchanged (whole milliseconds a Date can hold): only then may
 * an encoder write it straight into a row without building the entry first.
 */
export const wholeMs = (ms: number): boolean => Number.isInteger(ms) && Math.abs(ms) <= 8.64e15;

/** A row's values in JOURNAL_COLUMNS order (positional binding). */
export function rowValues(r: JournalRow): unknown[] {
  return [
    r.seq,
    r.type,
    r.at,
    r.received_ms,
    r.request_id,
    r.method,
    r.path,
    r.route,
    r.tenant,
    r.subject,
    r.idempotency_key,
    r.trace_id,
    r.worker_id,
    r.fingerprint,
    r.effect,
    r.job_id,
    r.status,
    r.code,
    r.delivery,
    r.job_state,
    r.retry_after,
    r.client_ref,
    r.extra,
  ];
}
