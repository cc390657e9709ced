import type { Job, JobState } from '../../contract/jobs.js';
import type { CallOutcome } from '../http.js';
import {
  batchCancel,
  batchCreate,
  batchResultsGone,
  claimedByOther,
  readOutcome,
  type WireAdapter,
  type WireLookup,
  type WireResults,
  type WireStep,
} from './adapter.js';
import { customIdsOf, parseJsonl, verifyLines } from './result-lines.js';
import { BUILT_IN_TRAITS } from './traits.js';

/**
 * The Anthropic Message Batches wire (docs/spec/dialects.md). No metadata and no key: after a lost create the client
 * lists the batches made since the operation was submitted and adopts the only unclaimed one with as many requests
 * as ours; the custom_ids of its results confirm it (docs/decisions/013-dialect-lost-create-recovery.md).
 */
const BASE = '/anthropic/v1/messages/batches';
const HEADERS = { 'anthropic-version': '2023-06-01' };
const CLOCK_SKEW_MS = 2000;
const MAX_LIST_PAGES = 20;

interface Counts {
  processing: number;
  succeeded: number;
  errored: number;
  canceled: number;
  expired: number;
}
interface Batch {
  id: string;
  processing_status: string;
  request_counts: Counts;
  created_at: string;
  cancel_initiated_at?: string | null;
  ended_at?: string | null;
  results_url?: string | null;
}

function batchOf(v: unknown): Batch | null {
  const b = v as Batch | null;
  return b &&
    typeof b === 'object' &&
    typeof b.id === 'string' &&
    typeof b.processing_status === 'string' &&
    b.request_counts &&
    typeof b.created_at === 'string'
    ? b
    : null;
}

const total = (c: Counts) => c.processing + c.succeeded + c.errored + c.canceled + c.expired;

/**
 * An ended batch: with a canceled request a cancel took effect; with an expired one, or nothing succeeded, it
 * failed; otherwise its results are fetched (decision record, "Final state from an Anthropic batch").
 */
function stateOf(b: Batch): JobState {
  if (b.processing_status === 'in_progress') return 'running';
  if (b.processing_status === 'canceling') return 'cancelling';
  const c = b.request_counts;
  if (c.canceled > 0) return 'cancelled';
  if (c.expired > 0) return 'expired';
  return c.succeeded === 0 ? 'failed' : 'succeeded';
}

export function anthropicJob(b: Batch, rec: { operation_id: string; kind: string; trace_id: string }): Job {
  const c = b.request_counts;
  const state = stateOf(b);
  return {
    job_id: b.id,
    kind: rec.kind,
    state,
    client_ref: rec.operation_id,
    trace_id: rec.trace_id,
    created_at: b.created_at,
    updated_at: b.ended_at ?? b.created_at,
    progress: { completed: total(c) - c.processing, total: total(c) },
    cancel_requested_at: b.cancel_initiated_at ?? null,
    result:
      state === 'succeeded'
        ? {
            url: b.results_url ?? '',
            sha256: '',
            content_type: 'application/x-ndjson',
            size: 0,
            items_total: total(c),
            items_failed: total(c) - c.succeeded,
          }
        : null,
    error: state === 'failed' ? { code: 'batch_failed', message: `no request succeeded (${c.errored} errored)` } : null,
  };
}

const ok = (o: CallOutcome) => o.kind === 'answer' && o.status >= 200 && o.status < 300;
const idPath = (s: WireStep) => `${BASE}/${encodeURIComponent(s.rec.remote_job_id!)}`;

async function readBatch(s: WireStep): Promise<{ call: CallOutcome; batch: Batch | null }> {
  const call = await s.send({ route: 'status', method: 'GET', path: idPath(s), headers: HEADERS });
  return { call, batch: ok(call) && call.kind === 'answer' ? batchOf(call.json) : null };
}

/** Follow `results_url` only on the provider we trust with our key; anywhere else, the documented path. */
function resultsPath(s: WireStep, url: string | null | undefined, root: string): string {
  if (url) {
    try {
      const u = new URL(url, root);
      if (u.origin === new URL(root).origin) return `${u.pathname}${u.search}`;
    } catch {
      // not a URL: fall through
    }
  }
  return `${idPath(s)}/results`;
}

export function anthropicWire(providerUrl: string): WireAdapter {
  return {
    ...BUILT_IN_TRAITS.anthropic,
    async create(s) {
      const requests = (s.rec.input as { requests?: unknown[] }).requests ?? [];
      const o = await s.send({ route: 'create', method: 'POST', path: BASE, body: { requests }, headers: HEADERS });
      const b = ok(o) && o.kind === 'answer' ? batchOf(o.json) : null;
      return batchCreate(o, b ? anthropicJob(b, s.rec) : null);
    },
    async read(s) {
      const { call, batch } = await readBatch(s);
      return readOutcome(s, call, batch, anthropicJob);
    },
    async find(s, createBy): Promise<WireLookup> {
      const since = s.rec.submitted_at - CLOCK_SKEW_MS;
      const n = customIdsOf(s.rec.input).length;
      const candidates: Batch[] = [];
      let after: string | null = null;
      let call: CallOutcome | null = null;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        call = await s.send({
          route: 'list',
          method: 'GET',
          path: `${BASE}?limit=100${after ? `&after_id=${encodeURIComponent(after)}` : ''}`,
          headers: HEADERS,
        });
        const list =
          ok(call) && call.kind === 'answer'
            ? (call.json as { data?: unknown[]; has_more?: boolean; last_id?: string | null } | null)
            : null;
        if (!list || !Array.isArray(list.data)) return { kind: 'unclear', call };
        let older = false;
        for (const raw of list.data) {
          const b = batchOf(raw);
          if (!b) return { kind: 'unclear', call };
          if (Date.parse(b.created_at) < since) {
            older = true;
            break;
          }
          if (total(b.request_counts) === n && !(await claimedByOther(s, b.id))) candidates.push(b);
        }
        if (older || !list.has_more || !list.last_id) break;
        after = list.last_id;
      }
      if (candidates.length === 1) return { kind: 'found', job: anthropicJob(candidates[0]!, s.rec), call: call! };
      if (candidates.length === 0) return { kind: 'none', call: call! };
      // Several could be ours: list again later; past the create deadline a person decides (needs_attention).
      return s.now() >= createBy ? { kind: 'conflict', ids: candidates.map((b) => b.id), call: call! } : { kind: 'unclear', call: call! };
    },
    async cancel(s) {
      const o = await s.send({ route: 'cancel', method: 'POST', path: `${idPath(s)}/cancel`, headers: HEADERS });
      const b = ok(o) && o.kind === 'answer' ? batchOf(o.json) : null;
      return batchCancel(o, b ? anthropicJob(b, s.rec) : null);
    },
    async results(s) {
      const r = await fetchResults(s, providerUrl);
      return { ...r, gone: batchResultsGone(r.call) };
    },
  };
}

/** The results named by the batch, verified against its custom_ids. */
async function fetchResults(s: WireStep, providerUrl: string): Promise<Omit<WireResults, 'gone'>> {
  const { call, batch } = await readBatch(s);
  if (!batch) return { call, location: '', verification: null };
  const path = resultsPath(s, batch.results_url, providerUrl);
  const o = await s.send({ route: 'results', method: 'GET', path, headers: HEADERS });
  if (o.kind !== 'answer' || o.status !== 200) return { call: o, location: path, verification: null };
  const p = parseJsonl(o.body);
  if ('error' in p) return { call: o, location: path, verification: { ok: false, reason: p.error } };
  const failed = (l: Record<string, unknown>) => (l.result as { type?: string } | null)?.type !== 'succeeded';
  return { call: o, location: path, verification: verifyLines(customIdsOf(s.rec.input), p.lines, failed, o.body) };
}
