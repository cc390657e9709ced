import type { JournalEntry, RequestEntry } from '../../../contract/journal.js';
import type { HistoryEntry } from '../../../contract/client-protocol.js';
import type { RunEvidence } from '../../checker/evidence.js';
import type { Failure } from '../../checker/verdict.js';

/**
 * A failure written as a short argument a person can check line by line: the journal entries and history lines it
 * rests on, the last step of the client that is still consistent, the first that cannot be explained, and the
 * judge's conclusion. Pure over the evidence.
 */
export interface Argument {
  premises: Array<{ seq?: number; text: string }>;
  lastCorrect: { seq: number; text: string } | null;
  firstUnexplained: { seq?: number; text: string } | null;
  conclusion: string;
}

export function describeEntry(e: JournalEntry): string {
  if (e.type === 'request') {
    const r: RequestEntry = e;
    const who = r.worker_id ?? 'client';
    const bits = [
      `${who} sent ${r.method} ${r.path}`,
      r.idempotency_key ? `key ${r.idempotency_key}` : '',
      r.trace_id ? `trace ${r.trace_id}` : '',
    ].filter(Boolean);
    const answer = `${r.status}${r.code ? ` ${r.code}` : ''}${r.effect !== 'none' && r.effect !== 'read' ? ` (${r.effect.replace('_', ' ')}${r.job_id ? ` ${r.job_id}` : ''})` : r.job_id ? ` for ${r.job_id}` : ''}${r.job_state ? `, job ${r.job_state}` : ''}`;
    const fate =
      r.delivery === 'lost' ? '; the answer was lost on the way back' : r.delivery === 'delayed' ? '; the answer was delayed' : '';
    const fault = r.fault ? ` [fault ${r.fault.rule_id}: ${r.fault.type}]` : '';
    return `${bits.join(', ')} at ${r.received_at} → ${answer}${fate}${fault}`;
  }
  if (e.type === 'transition') return `job ${e.job_id} went ${e.from ?? '∅'} → ${e.to} at ${e.at} (${e.cause})`;
  const forged = e.forged
    ? ` (forged: ${e.forged === 'unsigned' ? 'unsigned' : 'signed with a wrong secret'}, never the provider's word)`
    : '';
  return `webhook ${e.event_type} for ${e.job_id}${forged}, attempt ${e.attempt}, ${e.outcome}${e.status !== null ? ` ${e.status}` : ''} at ${e.at}${e.fault ? ` [fault ${e.fault.type}]` : ''}`;
}

export function describeHistory(h: HistoryEntry): string {
  return `history: ${h.at} ${h.actor} ${h.from ?? '∅'} → ${h.to} (${h.cause})`;
}

export function buildArgument(f: Failure, evidence: Pick<RunEvidence, 'journal' | 'principal'>): Argument {
  const bySeq = new Map(evidence.journal.map((e) => [e.seq, e] as const));
  const seqs = [...new Set(f.evidence.journal_seqs)].sort((a, b) => a - b);
  const premises: Argument['premises'] = [
    ...seqs.map((seq) => ({ seq, text: bySeq.has(seq) ? describeEntry(bySeq.get(seq)!) : `journal entry #${seq}` })),
    ...f.evidence.history.map((h) => ({ text: describeHistory(h) })),
  ];
  // The evidence lists the context first and the offending step last: the latest cited request of the client is
  // the first step the rules cannot explain; without one, the history line the client wrote.
  const { tenant, subject } = evidence.principal;
  const isMine = (e: JournalEntry | undefined): e is RequestEntry => e?.type === 'request' && e.tenant === tenant && e.subject === subject;
  const offending = [...seqs].reverse().find((s) => isMine(bySeq.get(s)));
  let firstUnexplained: Argument['firstUnexplained'] = null;
  let lastCorrect: Argument['lastCorrect'] = null;
  if (offending !== undefined) firstUnexplained = { seq: offending, text: describeEntry(bySeq.get(offending)!) };
  else if (f.evidence.history[0]) firstUnexplained = { text: describeHistory(f.evidence.history[f.evidence.history.length - 1]!) };
  else if (seqs.length) firstUnexplained = { seq: seqs[seqs.length - 1]!, text: premises[seqs.length - 1]!.text };
  const limit = firstUnexplained?.seq ?? Number.POSITIVE_INFINITY;
  const before = evidence.journal.filter((e): e is RequestEntry => isMine(e) && e.seq < limit).sort((a, b) => b.seq - a.seq)[0];
  if (before) lastCorrect = { seq: before.seq, text: describeEntry(before) };
  return { premises, lastCorrect, firstUnexplained, conclusion: f.explanation };
}
