import type { JournalEntry, RequestEntry } from '../../../contract/journal.js';
import type { RunEvidence } from '../../checker/evidence.js';

/**
 * A run's sequence diagram as geometry, pure over the run evidence (journal + harness events): lanes, arrows, lost
 * answers as crosses mid-way, and shaded windows. Rendering to SVG is elsewhere (diagram-svg.ts).
 *
 * Time runs down. y is not linear in time: every instant something happened gets its own row, and times between are
 * interpolated, so a 30 s wait and a burst of 10 polls in 50 ms both stay readable.
 */

export type LaneKind = 'worker' | 'provider' | 'webhook-sender' | 'webhook-receiver';
export interface Lane {
  id: string;
  label: string;
  kind: LaneKind;
  x: number;
}

export interface Arrow {
  seq: number;
  kind: 'request' | 'answer' | 'webhook';
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Lost answer or dropped webhook: the arrow stops mid-way at a cross. */
  lost: boolean;
  label: string;
  /** The journal entry, for the tooltip. */
  title: string;
  /** Cited by a failure's evidence. */
  cited: boolean;
}

export interface Window {
  kind: 'kill' | 'pause' | 'fault' | 'restart';
  lane: string;
  x: number;
  y1: number;
  y2: number;
  width: number;
  label: string;
}

export interface Note {
  seq: number;
  x: number;
  y: number;
  text: string;
  title: string;
}

export interface DiagramLayout {
  width: number;
  height: number;
  lanes: Lane[];
  arrows: Arrow[];
  windows: Window[];
  notes: Note[];
  /** Journal entries of the run left out to keep the diagram readable (far from any cited entry). */
  elided: number;
}

export const LAYOUT = { laneGap: 300, margin: 80, top: 50, row: 22, laneWidth: 240, maxEvents: 400 } as const;

const ms = (s: string) => Date.parse(s);

/** Keep every cited entry and its neighbours, the start and the end; drop the long middle of a huge run. */
export function selectEntries(
  entries: JournalEntry[],
  cited: Set<number>,
  max: number = LAYOUT.maxEvents,
): { kept: JournalEntry[]; elided: number } {
  if (entries.length <= max) return { kept: entries, elided: 0 };
  const keep = new Set<number>();
  entries.forEach((e, i) => {
    if (i < 40 || i >= entries.length - 40) keep.add(i);
    if (cited.has(e.seq)) for (let j = Math.max(0, i - 6); j <= Math.min(entries.length - 1, i + 6); j++) keep.add(j);
  });
  const kept = [...keep]
    .sort((a, b) => a - b)
    .slice(0, max)
    .map((i) => entries[i]!);
  return { kept, elided: entries.length - kept.length };
}

/**
 * Rows: every event (a request sent, an answer, a transition, a webhook) gets its own row, in time order (ties by
 * journal order, a request before its answer). `yAt` places any other instant (a SIGKILL) between the rows around it.
 */
export function rowScale(
  events: Array<{ t: number; key: string; order: number }>,
  top: number,
  row: number,
): { y: (key: string) => number; yAt: (t: number) => number; rows: number } {
  const sorted = [...events].sort((a, b) => a.t - b.t || a.order - b.order);
  const ys = new Map(sorted.map((e, i) => [e.key, top + i * row] as const));
  const times = sorted.map((e) => e.t);
  const yAt = (t: number) => {
    // Rows strictly before t, then half a row: an instant lands between the events around it.
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    return top + Math.max(0, lo - 0.5) * row;
  };
  return { y: (key) => ys.get(key) ?? top, yAt, rows: sorted.length };
}

function requestLabel(e: RequestEntry): string {
  return `#${e.seq} ${e.method} ${e.route ?? e.path}`;
}

function answerLabel(e: RequestEntry): string {
  const what = `${e.status}${e.code ? ` ${e.code}` : ''}${e.effect === 'created' || e.effect === 'replayed' ? ` ${e.effect}` : ''}${e.job_state ? ` ${e.job_state}` : ''}`;
  return e.delivery === 'lost' ? `${what} — LOST${e.fault ? ` (${e.fault.type})` : ''}` : what;
}

export function layoutDiagram(
  evidence: Pick<RunEvidence, 'journal' | 'harness' | 'principal'>,
  citedSeqs: Iterable<number> = [],
): DiagramLayout {
  const cited = new Set(citedSeqs);
  const { tenant, subject } = evidence.principal;
  const mine = [...evidence.journal]
    .sort((a, b) => a.seq - b.seq)
    .filter((e) =>
      e.type === 'request' ? e.tenant === tenant && e.subject === subject : e.type === 'transition' ? e.tenant === tenant : true,
    );
  const jobIds = new Set(mine.flatMap((e) => (e.type === 'request' && e.job_id ? [e.job_id] : [])));
  const relevant = mine.filter((e) => e.type === 'request' || jobIds.has(e.job_id));
  const { kept, elided } = selectEntries(relevant, cited);

  const workerOf = (e: RequestEntry) => e.worker_id ?? 'client';
  const workers: string[] = [];
  const addWorker = (w: string) => void (workers.includes(w) || workers.push(w));
  for (const h of evidence.harness) if (h.worker_id) addWorker(h.worker_id);
  for (const e of kept) if (e.type === 'request') addWorker(workerOf(e));
  const hasWebhooks = kept.some((e) => e.type === 'webhook');
  const laneIds: Array<Omit<Lane, 'x'>> = [
    ...workers.map((w) => ({ id: `worker:${w}`, label: w, kind: 'worker' as const })),
    { id: 'provider', label: 'provider', kind: 'provider' as const },
  ];
  if (hasWebhooks)
    laneIds.push(
      { id: 'webhook-sender', label: 'webhook sender', kind: 'webhook-sender' },
      { id: 'webhook-receiver', label: 'client webhook receiver', kind: 'webhook-receiver' },
    );
  const lanes: Lane[] = laneIds.map((l, i) => ({ ...l, x: LAYOUT.margin + i * LAYOUT.laneGap }));
  const laneX = (id: string) => lanes.find((l) => l.id === id)?.x ?? lanes[0]!.x;

  // On equal times (a virtual clock), a request is sent right after the previous request's answer, before whatever
  // the provider journalled while handling it (a create's first transition).
  const events: Array<{ t: number; key: string; order: number }> = [];
  let previousRequest = 0;
  for (const e of kept) {
    if (e.type === 'request') {
      events.push({ t: ms(e.received_at), key: `q${e.seq}`, order: previousRequest + 0.5 });
      previousRequest = e.seq;
    }
    events.push({ t: ms(e.at), key: `a${e.seq}`, order: e.seq });
  }
  const rs = rowScale(events, LAYOUT.top, LAYOUT.row);
  const y = rs.yAt;
  const rows = rs.rows;

  const arrows: Arrow[] = [];
  const windows: Window[] = [];
  const notes: Note[] = [];
  const px = laneX('provider');
  for (const e of kept) {
    const title = JSON.stringify(e, null, 1);
    if (e.type === 'request') {
      const wx = laneX(`worker:${workerOf(e)}`);
      const y1 = rs.y(`q${e.seq}`);
      const y2 = rs.y(`a${e.seq}`);
      const isCited = cited.has(e.seq);
      arrows.push({ seq: e.seq, kind: 'request', x1: wx, y1, x2: px, y2: y1, lost: false, label: requestLabel(e), title, cited: isCited });
      const lost = e.delivery === 'lost';
      arrows.push({
        seq: e.seq,
        kind: 'answer',
        x1: px,
        y1: y2,
        x2: lost ? (px + wx) / 2 : wx,
        y2,
        lost,
        label: answerLabel(e),
        title,
        cited: isCited,
      });
      if (e.fault) {
        windows.push({
          kind: 'fault',
          lane: 'provider',
          x: px - 14,
          width: 28,
          y1: y1 - 4,
          y2: Math.max(y2, y1) + 4,
          label: `fault ${e.fault.rule_id}: ${e.fault.type} (#${e.seq})`,
        });
      }
    } else if (e.type === 'webhook') {
      const wy = rs.y(`a${e.seq}`);
      const sx = laneX('webhook-sender');
      const rx = laneX('webhook-receiver');
      const lost = e.outcome === 'dropped';
      const label = `#${e.seq} ${e.event_type} try ${e.attempt}: ${e.outcome}${e.fault ? ` (${e.fault.type})` : ''}`;
      arrows.push({
        seq: e.seq,
        kind: 'webhook',
        x1: sx,
        y1: wy,
        x2: lost ? (sx + rx) / 2 : rx,
        y2: wy,
        lost,
        label,
        title,
        cited: cited.has(e.seq),
      });
      if (e.fault)
        windows.push({
          kind: 'fault',
          lane: 'webhook-sender',
          x: sx - 14,
          width: 28,
          y1: wy - 6,
          y2: wy + 6,
          label: `fault ${e.fault.rule_id}: ${e.fault.type}`,
        });
    } else {
      notes.push({ seq: e.seq, x: px + 6, y: rs.y(`a${e.seq}`), text: `#${e.seq} ${e.job_id}: ${e.from ?? '∅'} → ${e.to}`, title });
    }
  }

  // SIGKILL until the worker is started again, SIGSTOP until resumed; a provider restart as a band on its lane.
  const bottom = LAYOUT.top + Math.max(0, rows - 1) * LAYOUT.row + LAYOUT.row;
  const open = new Map<string, { kind: 'kill' | 'pause'; at: number }>();
  const shade = (kind: Window['kind'], lane: string, from: number, to: number, label: string) =>
    windows.push({
      kind,
      lane,
      x: laneX(lane) - LAYOUT.laneWidth / 2 + 20,
      width: LAYOUT.laneWidth - 40,
      y1: from,
      y2: Math.max(to, from + 6),
      label,
    });
  for (const h of [...evidence.harness].sort((a, b) => ms(a.at) - ms(b.at))) {
    const w = h.worker_id ?? '';
    const lane = `worker:${w}`;
    if (h.type === 'kill' || h.type === 'pause') open.set(w, { kind: h.type, at: ms(h.at) });
    else if ((h.type === 'start' || h.type === 'resume') && open.has(w)) {
      const o = open.get(w)!;
      open.delete(w);
      shade(
        o.kind,
        lane,
        y(o.at),
        y(ms(h.at)),
        `${o.kind === 'kill' ? 'SIGKILL' : 'SIGSTOP'} ${w}: ${new Date(o.at).toISOString()} → ${h.at}`,
      );
    } else if (h.type === 'provider_restart') {
      shade('restart', 'provider', y(ms(h.at)) - 4, y(ms(h.at)) + 4, `provider restarted at ${h.at}`);
    }
  }
  for (const [w, o] of open)
    shade(
      o.kind,
      `worker:${w}`,
      y(o.at),
      bottom,
      `${o.kind === 'kill' ? 'SIGKILL' : 'SIGSTOP'} ${w} from ${new Date(o.at).toISOString()} to the end`,
    );

  const width = LAYOUT.margin * 2 + (lanes.length - 1) * LAYOUT.laneGap + 300;
  return { width, height: bottom + 30, lanes, arrows, windows, notes, elided };
}
