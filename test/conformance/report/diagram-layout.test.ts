import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JournalEntry, RequestEntry } from '../../../src/contract/journal.js';
import { layoutDiagram, selectEntries, LAYOUT } from '../../../src/conformance/report/html/diagram-layout.js';
import type { HarnessEvent } from '../../../src/conformance/checker/evidence.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const principal = { tenant: 'acme', subject: 'alice' };

function req(seq: number, worker: string | null, sentMs: number, answerMs: number, extra: Partial<RequestEntry> = {}): RequestEntry {
  return {
    seq,
    type: 'request',
    at: iso(answerMs),
    received_at: iso(sentMs),
    request_id: `req_${seq}`,
    method: 'GET',
    path: '/v1/jobs/job_1',
    route: 'status',
    tenant: 'acme',
    subject: 'alice',
    idempotency_key: null,
    trace_id: 'tr_1',
    worker_id: worker,
    fingerprint: null,
    effect: 'read',
    job_id: 'job_1',
    status: 200,
    code: null,
    delivery: 'delivered',
    fault: null,
    job_state: 'running',
    retry_after: null,
    client_ref: null,
    ...extra,
  };
}

describe('sequence diagram layout (pure)', () => {
  const journal: JournalEntry[] = [
    req(1, 'w1', 0, 5, {
      method: 'POST',
      path: '/v1/jobs',
      route: 'create',
      effect: 'created',
      delivery: 'lost',
      fault: { rule_id: 'r1', type: 'lose_response' },
    }),
    { seq: 2, type: 'transition', at: iso(5), job_id: 'job_1', tenant: 'acme', from: null, to: 'queued', cause: 'created' },
    req(3, 'w2', 100, 101),
    {
      seq: 4,
      type: 'webhook',
      at: iso(150),
      event_id: 'evt_1',
      event_type: 'job.succeeded',
      job_id: 'job_1',
      url: 'http://127.0.0.1:9/hook',
      attempt: 1,
      outcome: 'dropped',
      status: null,
      error: null,
      fault: { rule_id: 'r2', type: 'drop' },
    },
    req(5, 'w1', 300, 301),
    req(6, null, 20, 21, { tenant: 'other', subject: 'mallory' }),
  ];
  const harness: HarnessEvent[] = [
    { at: iso(0), type: 'start', worker_id: 'w1' },
    { at: iso(50), type: 'kill', worker_id: 'w1' },
    { at: iso(250), type: 'start', worker_id: 'w1' },
    { at: iso(90), type: 'start', worker_id: 'w2' },
    { at: iso(120), type: 'pause', worker_id: 'w2' },
  ];
  const d = layoutDiagram({ journal, harness, principal }, [1]);

  it('has a lane per worker, the provider, the webhook sender and receiver; other principals stay out', () => {
    expect(d.lanes.map((l) => l.id)).toEqual(['worker:w1', 'worker:w2', 'provider', 'webhook-sender', 'webhook-receiver']);
    expect(d.arrows.some((a) => a.seq === 6)).toBe(false);
  });

  it('draws a lost answer as an arrow stopping mid-way, and a dropped webhook the same', () => {
    const x = (id: string) => d.lanes.find((l) => l.id === id)!.x;
    const lost = d.arrows.find((a) => a.seq === 1 && a.kind === 'answer')!;
    expect(lost.lost).toBe(true);
    expect(lost.x2).toBe((x('provider') + x('worker:w1')) / 2);
    expect(lost.cited).toBe(true);
    const hook = d.arrows.find((a) => a.kind === 'webhook')!;
    expect(hook.lost).toBe(true);
    expect(hook.x2).toBe((x('webhook-sender') + x('webhook-receiver')) / 2);
    const ok = d.arrows.find((a) => a.seq === 3 && a.kind === 'answer')!;
    expect([ok.lost, ok.x2]).toEqual([false, x('worker:w2')]);
  });

  it('shades SIGKILL until the restart, SIGSTOP to the end, and the fault', () => {
    const y = (seq: number, kind: 'request' | 'answer') => d.arrows.find((a) => a.seq === seq && a.kind === kind)!.y1;
    const kill = d.windows.find((w) => w.kind === 'kill')!;
    expect(kill.lane).toBe('worker:w1');
    // The kill came after #1's answer and before #3; the restart before #5.
    expect(kill.y1).toBeGreaterThan(y(1, 'answer'));
    expect(kill.y1).toBeLessThan(y(3, 'request'));
    expect(kill.y2).toBeLessThan(y(5, 'request'));
    const pause = d.windows.find((w) => w.kind === 'pause')!;
    expect(pause.y2).toBeGreaterThan(y(5, 'answer'));
    expect(d.windows.filter((w) => w.kind === 'fault').map((w) => w.lane)).toEqual(['provider', 'webhook-sender']);
  });

  it('property: every request of the client gets a request and an answer arrow, answer not above request, all inside the canvas', () => {
    const arb = fc.array(
      fc.record({
        worker: fc.constantFrom('w1', 'w2', 'w3', null),
        sent: fc.integer({ min: 0, max: 10_000 }),
        took: fc.integer({ min: 0, max: 3_000 }),
        lost: fc.boolean(),
      }),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(arb, (rs) => {
        const j = rs.map((r, i) => req(i + 1, r.worker, r.sent, r.sent + r.took, r.lost ? { delivery: 'lost' } : {}));
        const lay = layoutDiagram({ journal: j, harness: [], principal }, []);
        for (const e of j) {
          const q = lay.arrows.filter((a) => a.seq === e.seq);
          expect(q.map((a) => a.kind).sort()).toEqual(['answer', 'request']);
          const [an, rq] = [q.find((a) => a.kind === 'answer')!, q.find((a) => a.kind === 'request')!];
          expect(an.y1).toBeGreaterThan(rq.y1);
          expect(an.lost).toBe(e.delivery === 'lost');
        }
        for (const a of lay.arrows) for (const v of [a.x1, a.x2]) expect(v).toBeLessThanOrEqual(lay.width);
        for (const a of lay.arrows) expect(a.y1).toBeLessThanOrEqual(lay.height);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps cited entries and their neighbours when a run is too long to draw whole', () => {
    const many = Array.from({ length: 2_000 }, (_, i) => req(i + 1, 'w1', i * 10, i * 10 + 1));
    const { kept, elided } = selectEntries(many, new Set([1_000]));
    expect(kept.length).toBeLessThanOrEqual(LAYOUT.maxEvents);
    expect(kept.map((e) => e.seq)).toContain(1_000);
    expect(kept.map((e) => e.seq)).toContain(994);
    expect(elided).toBe(2_000 - kept.length);
  });
});
