import type { JournalEntry, RequestEntry, TransitionEntry, WebhookEntry } from '../../../../src/contract/journal.js';
import type { OperationRecord, OperationState } from '../../../../src/contract/client-protocol.js';
import { check, type RunEvidenceInput, type Verdict } from '../../../../src/conformance/checker/index.js';
import { iso } from './journal-builder.js';

/** Small edits of simulated evidence, so each test states only what it breaks. */
export type Evidence = RunEvidenceInput & { journal: JournalEntry[]; records: OperationRecord[] };

export const ms = (s: string) => Date.parse(s);

export function requests(e: Evidence, pred: (r: RequestEntry) => boolean = () => true): RequestEntry[] {
  return e.journal.filter((x): x is RequestEntry => x.type === 'request' && pred(x));
}

/** Renumber by time, as the provider would have written them. */
function renumber(e: Evidence): void {
  e.journal.sort((a, b) => ms(a.at) - ms(b.at) || a.seq - b.seq);
  e.journal.forEach((x, i) => {
    x.seq = i + 1;
  });
}

/** Add a request like `like` (same operation headers), at `t` ms epoch, with `fields` changed. */
export function addRequest(e: Evidence, like: RequestEntry, t: number, fields: Partial<RequestEntry> = {}): void {
  e.journal.push({ ...like, request_id: `req_x${e.journal.length}`, seq: 1e9, at: iso(t), received_at: iso(t), ...fields });
  renumber(e);
}

export function addEntry(e: Evidence, entry: Omit<TransitionEntry, 'seq'> | Omit<WebhookEntry, 'seq'>): void {
  e.journal.push({ ...entry, seq: 1e9 } as JournalEntry);
  renumber(e);
}

export function dropRequests(e: Evidence, pred: (r: RequestEntry) => boolean): void {
  e.journal = e.journal.filter((x) => !(x.type === 'request' && pred(x)));
  renumber(e);
}

export function record(e: Evidence, id = 'op_1'): OperationRecord {
  return e.records.find((r) => r.operation_id === id)!;
}

/**
 * Keep the history up to the last entry into `after`, then append `steps` (state, ms after the kept entry or
 * absolute epoch ms when > 1e12). The record's state follows.
 */
export function setTail(r: OperationRecord, after: OperationState, steps: [OperationState, number, string?][]): void {
  const i = r.history.map((h) => h.to).lastIndexOf(after);
  if (i < 0) throw new Error(`history has no ${after}`);
  r.history = r.history.slice(0, i + 1);
  for (const [to, dt, actor] of steps) {
    const prev = r.history.at(-1)!;
    const at = dt > 1e12 ? dt : ms(prev.at) + dt;
    r.history.push({ at: iso(at), actor: actor ?? 'worker-1', from: prev.to, to, cause: 'test' });
  }
  r.state = r.history.at(-1)!.to;
}

export function brokenIds(v: Verdict): string[] {
  return v.invariants.filter((i) => i.status === 'broken').map((i) => i.id);
}

export function status(v: Verdict, id: string) {
  return v.invariants.find((i) => i.id === id)!.status;
}

/** Check, and hand back the verdict with the list of broken ids for one-line assertions. */
export function judge(e: Evidence): Verdict & { broken: string[] } {
  const v = check(e);
  return { ...v, broken: brokenIds(v) };
}
