import type { Job, JobState } from '../../contract/jobs.js';
import type { CallOutcome } from '../http.js';
import {
  batchCancel,
  batchCreate,
  batchResultsGone,
  claimedByOther,
  isoOf,
  readOutcome,
  type WireAdapter,
  type WireLookup,
  type WireResults,
  type WireStep,
} from './adapter.js';
import { customIdsOf, parseJsonl, verifyLines } from './result-lines.js';
import { BUILT_IN_TRAITS } from './traits.js';

/**
 * The OpenAI Batch wire (docs/spec/dialects.md): upload the JSONL file, create the batch with
 * `metadata.client_operation_id`, and after a lost create list the batches and adopt the one whose metadata names
 * the operation (docs/decisions/013-dialect-lost-create-recovery.md).
 */
const BASE = '/openai/v1';
export const METADATA_KEY = 'client_operation_id';
/** How far before the operation's submit a list looks back (clock skew between us and the provider). */
const LIST_WINDOW_MS = 60_000;
const MAX_LIST_PAGES = 20;

interface Batch {
  id: string;
  status: string;
  created_at: number;
  cancelling_at?: number | null;
  request_counts?: { total: number; completed: number; failed: number } | null;
  metadata?: Record<string, string> | null;
  output_file_id?: string | null;
  error_file_id?: string | null;
  errors?: { data?: { code?: string; message?: string }[] } | null;
}

function batchOf(v: unknown): Batch | null {
  const b = v as Batch | null;
  return b && typeof b === 'object' && typeof b.id === 'string' && typeof b.status === 'string' && typeof b.created_at === 'number'
    ? b
    : null;
}

const STATES: Record<string, JobState> = {
  validating: 'queued',
  in_progress: 'running',
  finalizing: 'running',
  completed: 'succeeded',
  failed: 'failed',
  expired: 'expired',
  cancelling: 'cancelling',
  cancelled: 'cancelled',
};

export function openaiJob(b: Batch, rec: { operation_id: string; kind: string; trace_id: string }): Job {
  const c = b.request_counts ?? { total: 0, completed: 0, failed: 0 };
  const state = STATES[b.status] ?? 'running';
  const err = b.errors?.data?.[0];
  const created = isoOf(b.created_at)!;
  return {
    job_id: b.id,
    kind: rec.kind,
    state,
    client_ref: rec.operation_id,
    trace_id: rec.trace_id,
    created_at: created,
    updated_at: created,
    progress: { completed: c.completed + c.failed, total: c.total },
    cancel_requested_at: isoOf(b.cancelling_at),
    // What the results are checked against is the submitted batch itself (custom_ids), not a digest announced here.
    result:
      state === 'succeeded'
        ? {
            url: b.output_file_id ?? b.error_file_id ?? '',
            sha256: '',
            content_type: 'application/x-ndjson',
            size: 0,
            items_total: c.total,
            items_failed: c.failed,
          }
        : null,
    error: state === 'failed' ? { code: err?.code ?? 'batch_failed', message: err?.message ?? `batch ${b.status}` } : null,
  };
}

const ok = (o: CallOutcome) => o.kind === 'answer' && o.status >= 200 && o.status < 300;

async function readBatch(s: WireStep): Promise<{ call: CallOutcome; batch: Batch | null }> {
  const call = await s.send({ route: 'status', method: 'GET', path: `${BASE}/batches/${encodeURIComponent(s.rec.remote_job_id!)}` });
  return { call, batch: ok(call) && call.kind === 'answer' ? batchOf(call.json) : null };
}

export const openaiWire: WireAdapter = {
  ...BUILT_IN_TRAITS.openai,
  async create(s) {
    const input = s.rec.input as { endpoint?: string; requests?: unknown[] };
    const jsonl = `${(input.requests ?? []).map((r) => JSON.stringify(r)).join('\n')}\n`;
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([jsonl], { type: 'application/jsonl' }), `${s.rec.operation_id}.jsonl`);
    // A lost upload made no batch: the caller treats it like a lost create and lists before creating again.
    const up = await s.send({ route: 'create', method: 'POST', path: `${BASE}/files`, form });
    const fileId = ok(up) && up.kind === 'answer' ? (up.json as { id?: unknown } | null)?.id : null;
    if (typeof fileId !== 'string') return batchCreate(up, null);
    const body = {
      input_file_id: fileId,
      endpoint: input.endpoint ?? '/v1/chat/completions',
      completion_window: '24h',
      metadata: { [METADATA_KEY]: s.rec.operation_id },
    };
    const o = await s.send({ route: 'create', method: 'POST', path: `${BASE}/batches`, body });
    const b = ok(o) && o.kind === 'answer' ? batchOf(o.json) : null;
    return batchCreate(o, b ? openaiJob(b, s.rec) : null);
  },
  async read(s) {
    const { call, batch } = await readBatch(s);
    return readOutcome(s, call, batch, openaiJob);
  },
  async find(s): Promise<WireLookup> {
    const since = s.rec.submitted_at - LIST_WINDOW_MS;
    let match: Batch | null = null;
    let after: string | null = null;
    let call: CallOutcome | null = null;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      call = await s.send({
        route: 'list',
        method: 'GET',
        path: `${BASE}/batches?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      });
      const list =
        ok(call) && call.kind === 'answer' ? (call.json as { data?: unknown[]; has_more?: boolean; last_id?: string | null } | null) : null;
      if (!list || !Array.isArray(list.data)) return { kind: 'unclear', call };
      let older = false;
      for (const raw of list.data) {
        const b = batchOf(raw);
        if (!b) return { kind: 'unclear', call };
        if (b.created_at * 1000 < since) {
          older = true;
          break;
        }
        // Newest first: the last match is the oldest, the one our first create made.
        if (b.metadata?.[METADATA_KEY] === s.rec.operation_id && !(await claimedByOther(s, b.id))) match = b;
      }
      if (older || !list.has_more || !list.last_id) break;
      after = list.last_id;
    }
    return match ? { kind: 'found', job: openaiJob(match, s.rec), call: call! } : { kind: 'none', call: call! };
  },
  async cancel(s) {
    const o = await s.send({ route: 'cancel', method: 'POST', path: `${BASE}/batches/${encodeURIComponent(s.rec.remote_job_id!)}/cancel` });
    const b = ok(o) && o.kind === 'answer' ? batchOf(o.json) : null;
    return batchCancel(o, b ? openaiJob(b, s.rec) : null);
  },
  async results(s) {
    const r = await fetchResults(s);
    return { ...r, gone: batchResultsGone(r.call) };
  },
};

/** The output file, then the error file, verified together against the batch's custom_ids. */
async function fetchResults(s: WireStep): Promise<Omit<WireResults, 'gone'>> {
  const { call, batch } = await readBatch(s);
  if (!batch) return { call, location: '', verification: null };
  const bodies: { file: 'output' | 'error'; body: Uint8Array }[] = [];
  let last: CallOutcome = call;
  for (const [file, id] of [
    ['output', batch.output_file_id],
    ['error', batch.error_file_id],
  ] as const) {
    if (!id) continue;
    last = await s.send({ route: 'results', method: 'GET', path: `${BASE}/files/${encodeURIComponent(id)}/content` });
    if (last.kind !== 'answer' || last.status !== 200) return { call: last, location: `${BASE}/files/${id}/content`, verification: null };
    bodies.push({ file, body: last.body });
  }
  const lines: Record<string, unknown>[] = [];
  for (const { file, body } of bodies) {
    const p = parseJsonl(body);
    if ('error' in p) return { call: last, location: '', verification: { ok: false, reason: `${file} file: ${p.error}` } };
    lines.push(...p.lines.map((l) => ({ ...l, _file: file })));
  }
  const failed = (l: Record<string, unknown>) =>
    l._file === 'error' || l.error != null || (l.response as { status_code?: number } | null)?.status_code !== 200;
  // result.sha256: the output file as fetched, the error file's when there is no output (decision record).
  const main = bodies[0]?.body ?? new Uint8Array();
  const location = `${BASE}/files/${batch.output_file_id ?? batch.error_file_id ?? ''}/content`;
  const synthetic: CallOutcome = last.kind === 'answer' ? { ...last, status: 200 } : last;
  return { call: synthetic, location, verification: verifyLines(customIdsOf(s.rec.input), lines, failed, main) };
}
