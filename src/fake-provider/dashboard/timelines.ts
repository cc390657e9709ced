import type { JournalEntry, WebhookEntry } from '../../contract/journal.js';

export interface Span {
  state: string;
  from: string;
  /** null: still in this state. */
  to: string | null;
  seq: number;
}

export interface DeliveryView {
  event_id: string;
  event_type: string;
  attempts: WebhookEntry[];
  /** Delivered (2xx) more than once, or a duplicate fault fired. */
  duplicate: boolean;
  /** Reached the receiver after an event created later. */
  reordered: boolean;
}

export interface Timeline {
  id: string;
  kind: 'job' | 'task';
  spans: Span[];
  deliveries: DeliveryView[];
}

function close(spans: Span[], at: string): void {
  const last = spans[spans.length - 1];
  if (last && last.to === null) last.to = at;
}

/**
 * State histories as time spans, pure over the journal: jobs from their transitions, tasks from the states their
 * answers showed, and each job's webhook deliveries with every attempt, duplicates and reorders flagged.
 */
export function timelines(entries: Iterable<JournalEntry>): Timeline[] {
  const byId = new Map<string, Timeline>();
  const get = (id: string, kind: Timeline['kind']) => {
    const known = byId.get(id);
    if (known) return known;
    const t: Timeline = { id, kind, spans: [], deliveries: [] };
    byId.set(id, t);
    return t;
  };
  const deliveredOrder: string[] = [];
  const firstSeen = new Map<string, number>();
  for (const e of entries) {
    if (e.type === 'transition') {
      const t = get(e.job_id, 'job');
      close(t.spans, e.at);
      t.spans.push({ state: e.to, from: e.at, to: null, seq: e.seq });
    } else if (e.type === 'request' && e.task_id && e.task_state) {
      const t = get(e.task_id, 'task');
      if (t.spans[t.spans.length - 1]?.state !== e.task_state) {
        close(t.spans, e.at);
        t.spans.push({ state: e.task_state, from: e.at, to: null, seq: e.seq });
      }
    } else if (e.type === 'webhook') {
      const t = get(e.job_id, 'job');
      let d = t.deliveries.find((x) => x.event_id === e.event_id);
      if (!d) {
        d = { event_id: e.event_id, event_type: e.event_type, attempts: [], duplicate: false, reordered: false };
        t.deliveries.push(d);
        firstSeen.set(e.event_id, e.seq);
      }
      d.attempts.push(e);
      if (e.fault?.type === 'duplicate' || (e.outcome === 'delivered' && d.attempts.filter((a) => a.outcome === 'delivered').length > 1))
        d.duplicate = true;
      if (e.fault?.type === 'reorder') d.reordered = true;
      if (e.outcome === 'delivered') deliveredOrder.push(e.event_id);
    }
  }
  // An event delivered after one that was created later arrived out of order.
  const all = [...byId.values()].flatMap((t) => t.deliveries);
  let maxCreated = -1;
  for (const id of deliveredOrder) {
    const created = firstSeen.get(id)!;
    if (created < maxCreated) {
      const d = all.find((x) => x.event_id === id);
      if (d) d.reordered = true;
    }
    maxCreated = Math.max(maxCreated, created);
  }
  return [...byId.values()];
}

/** Span widths as fractions of the timeline's extent (`now` closes open spans), at least a sliver each. */
export function spanFractions(spans: Span[], now: number): number[] {
  if (spans.length === 0) return [];
  const start = Date.parse(spans[0]!.from);
  const ends = spans.map((s) => (s.to ? Date.parse(s.to) : now));
  const total = Math.max(1, Math.max(...ends) - start);
  return spans.map((s, i) => Math.max(0.02, (ends[i]! - Date.parse(s.from)) / total));
}
