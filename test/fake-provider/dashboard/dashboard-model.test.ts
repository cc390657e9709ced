import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JournalEntry, RequestEntry } from '../../../src/contract/journal.js';
import { entryFacts } from '../../../src/fake-provider/dashboard/entry-facts.js';
import { matches, parseFilter } from '../../../src/fake-provider/dashboard/filter.js';
import { hostAllowed } from '../../../src/fake-provider/dashboard/guards.js';
import { journalPage, type JournalReader } from '../../../src/fake-provider/dashboard/paging.js';
import { timelines } from '../../../src/fake-provider/dashboard/timelines.js';
import { curlOf } from '../../../src/fake-provider/dashboard/capture.js';

function req(seq: number, extra: Partial<RequestEntry> = {}): RequestEntry {
  return {
    seq,
    type: 'request',
    at: new Date(seq * 1000).toISOString(),
    received_at: new Date(seq * 1000).toISOString(),
    request_id: `req_${seq}`,
    method: 'GET',
    path: '/v1/jobs/job_1',
    route: 'status',
    tenant: 'acme',
    subject: 'alice',
    idempotency_key: null,
    trace_id: `tr_${seq % 3}`,
    worker_id: `w${seq % 2}`,
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

/** A journal with gaps in its sequence (deleted or trimmed entries), read the way the repo reads it. */
function reader(entries: JournalEntry[]): JournalReader & { reads: number } {
  const r = {
    reads: 0,
    since: (seq: number, limit = Number.MAX_SAFE_INTEGER) => {
      r.reads++;
      return entries.filter((e) => e.seq > seq).slice(0, limit);
    },
    lastSeq: () => entries[entries.length - 1]?.seq ?? 0,
  };
  return r;
}

describe('dashboard model (pure)', () => {
  it('says why: a fault, a lost answer, a replay, a key conflict', () => {
    expect(entryFacts(req(1, { delivery: 'lost', fault: { rule_id: 'r1', type: 'lose_response' } }))).toMatchObject({
      tone: 'lost',
      why: ['fault r1: lose_response', 'answer lost'],
    });
    expect(entryFacts(req(2, { effect: 'replayed' })).why).toEqual(['replayed (same key, same request)']);
    expect(entryFacts(req(3, { status: 409, code: 'idempotency_key_reused' })).tone).toBe('conflict');
  });

  it('property: paging backwards then forwards visits every matching entry once, newest first, whatever the gaps', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 3000 }), { maxLength: 400 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom('', 'w1', 'tr_2'),
        (seqs, size, needle) => {
          const entries = [...seqs].sort((a, b) => a - b).map((s) => req(s));
          const filter = parseFilter(needle.startsWith('w') ? { worker: needle } : needle ? { trace: needle } : {});
          const expected = entries
            .filter((e) => matches(e, filter))
            .map((e) => e.seq)
            .reverse();
          const r = reader(entries);
          const seen: number[] = [];
          let page = journalPage(r, filter, { size });
          seen.push(...page.entries.map((e) => e.seq));
          while (page.older !== null) {
            page = journalPage(r, filter, { before: page.older, size });
            seen.push(...page.entries.map((e) => e.seq));
          }
          expect(seen).toEqual(expected);
          // …and forwards from the oldest page back to the newest.
          if (expected.length) {
            const back: number[] = [];
            let p = journalPage(r, filter, { after: expected[expected.length - 1]! - 1, size });
            back.push(...[...p.entries].reverse().map((e) => e.seq));
            while (p.newer !== null) {
              p = journalPage(r, filter, { after: p.newer, size });
              back.push(...[...p.entries].reverse().map((e) => e.seq));
            }
            expect(back).toEqual([...expected].reverse());
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reads a 100,000-entry journal page by page without reading it whole', () => {
    const entries = Array.from({ length: 100_000 }, (_, i) => req(i + 1));
    const r = reader(entries);
    const page = journalPage(r, {}, { size: 100 });
    expect(page.entries[0]!.seq).toBe(100_000);
    expect(page.scanned).toBeLessThanOrEqual(300);
  });

  it('flags a webhook delivered twice and one that arrived after a later event', () => {
    const hook = (seq: number, event: string, outcome: 'delivered' | 'failed' = 'delivered'): JournalEntry => ({
      seq,
      type: 'webhook',
      at: new Date(seq).toISOString(),
      event_id: event,
      event_type: 'job.progress',
      job_id: 'job_1',
      url: 'http://x',
      attempt: 1,
      outcome,
      status: 204,
      error: null,
      fault: null,
    });
    const t = timelines([
      {
        seq: 1,
        type: 'transition',
        at: new Date(1).toISOString(),
        job_id: 'job_1',
        tenant: 'acme',
        from: null,
        to: 'queued',
        cause: 'created',
      },
      hook(2, 'evt_a', 'failed'),
      hook(3, 'evt_b'),
      hook(4, 'evt_a'),
      hook(5, 'evt_b'),
    ]);
    const d = t[0]!.deliveries;
    expect(d.find((x) => x.event_id === 'evt_a')).toMatchObject({ reordered: true, duplicate: false });
    expect(d.find((x) => x.event_id === 'evt_b')).toMatchObject({ duplicate: true });
    expect(t[0]!.spans.map((s) => s.state)).toEqual(['queued']);
  });

  it('serves loopback names and the configured host only (DNS rebinding)', () => {
    for (const h of ['localhost:4010', '127.0.0.1:4010', '[::1]:4010', 'app.localhost']) expect(hostAllowed(h, [])).toBe(true);
    for (const h of ['evil.example:4010', '127.0.0.1.evil.example', '', undefined]) expect(hostAllowed(h, [])).toBe(false);
    expect(hostAllowed('bench.internal:4010', ['bench.internal'])).toBe(true);
  });

  it('quotes a curl command so a body with quotes survives the shell', () => {
    const cmd = curlOf({
      method: 'POST',
      url: 'http://127.0.0.1:4010/v1/jobs',
      request_headers: [['idempotency-key', "it's"]],
      request_body: `{"a":"b'c"}`,
    });
    expect(cmd).toBe(`curl -i -X POST 'http://127.0.0.1:4010/v1/jobs' -H 'idempotency-key: it'\\''s' --data-raw '{"a":"b'\\''c"}'`);
  });
});
