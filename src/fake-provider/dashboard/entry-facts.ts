import type { JournalEntry } from '../../contract/journal.js';

/**
 * What a person wants to know about one journal entry at a glance, derived from the entry alone (pure): who, what,
 * and *why* it went the way it did (fault fired, answer lost / delayed / replayed, key conflict).
 */
export interface EntryFacts {
  seq: number;
  at: string;
  type: JournalEntry['type'];
  principal: string;
  route: string;
  status: string;
  key: string;
  trace: string;
  worker: string;
  job: string;
  why: string[];
  /** lost | delayed | replayed | fault | conflict | error | ok: the row's colour. */
  tone: 'lost' | 'delayed' | 'replayed' | 'fault' | 'conflict' | 'error' | 'ok';
}

const CONFLICT_CODES = /idempotency|conflict|in_progress|key_reuse|mismatch/i;

export function entryFacts(e: JournalEntry): EntryFacts {
  const why: string[] = [];
  let tone: EntryFacts['tone'] = 'ok';
  if (e.type === 'request') {
    if (e.fault) why.push(`fault ${e.fault.rule_id}: ${e.fault.type}`);
    if (e.delivery === 'lost') why.push('answer lost');
    if (e.delivery === 'delayed') why.push('answer delayed');
    if (e.effect === 'replayed') why.push('replayed (same key, same request)');
    if (e.effect === 'foreign_replay') why.push('replayed with a foreign job id');
    if (e.code && CONFLICT_CODES.test(e.code)) why.push(`key conflict: ${e.code}`);
    else if (e.code) why.push(e.code);
    if (e.effect === 'created') why.push('job created');
    tone =
      e.delivery === 'lost'
        ? 'lost'
        : e.delivery === 'delayed'
          ? 'delayed'
          : e.fault
            ? 'fault'
            : e.code && CONFLICT_CODES.test(e.code)
              ? 'conflict'
              : e.effect === 'replayed' || e.effect === 'foreign_replay'
                ? 'replayed'
                : e.status >= 400
                  ? 'error'
                  : 'ok';
    return {
      seq: e.seq,
      at: e.at,
      type: e.type,
      principal: e.tenant ? `${e.tenant}/${e.subject ?? '?'}` : '',
      route: `${e.method} ${e.path}`,
      status: String(e.status),
      key: e.idempotency_key ?? '',
      trace: e.trace_id ?? '',
      worker: e.worker_id ?? '',
      job: e.job_id ?? e.task_id ?? '',
      why,
      tone,
    };
  }
  if (e.type === 'transition') {
    why.push(`${e.from ?? '∅'} → ${e.to} (${e.cause})`);
    return {
      seq: e.seq,
      at: e.at,
      type: e.type,
      principal: e.tenant,
      route: 'job transition',
      status: e.to,
      key: '',
      trace: '',
      worker: '',
      job: e.job_id,
      why,
      tone: 'ok',
    };
  }
  if (e.fault) why.push(`fault ${e.fault.rule_id}: ${e.fault.type}`);
  why.push(`webhook ${e.event_type} attempt ${e.attempt}: ${e.outcome}${e.error ? ` (${e.error})` : ''}`);
  tone = e.outcome === 'dropped' ? 'lost' : e.fault ? 'fault' : e.outcome === 'failed' ? 'error' : 'ok';
  return {
    seq: e.seq,
    at: e.at,
    type: e.type,
    principal: '',
    route: `webhook → ${e.url}`,
    status: e.status === null ? e.outcome : String(e.status),
    key: e.event_id,
    trace: '',
    worker: '',
    job: e.job_id,
    why,
    tone,
  };
}
