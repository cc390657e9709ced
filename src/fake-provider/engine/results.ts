import { sha256Base64, sha256Hex } from '../../lib/canonical-json.js';
import type { Behavior } from '../../contract/behavior.js';
import type { JobResult } from '../../contract/jobs.js';

/**
 * Results are a pure function of the job id and its behaviour, so they need not be stored: the provider keeps
 * only the digest it promised, and a restarted provider serves the same bytes.
 */
export function renderResults(jobId: string, b: Behavior): string {
  // Each line is the JSON.stringify of its item (the test holds them equal), written as text: a job's results are
  // rendered when it succeeds (its digest) and objects built only to be stringified were two thirds of that.
  const id = JSON.stringify(jobId);
  const firstFailed = b.items - b.items_failed + 1;
  let out = '';
  for (let i = 1; i <= b.items; i++) {
    const item = `"item_id":"item_${String(i).padStart(4, '0')}"`;
    if (i >= firstFailed) {
      out += `{${item},"status":"failed","error":{"code":"item_failed","message":"item ${i} could not be processed"}}\n`;
    } else {
      const value = sha256Hex(`${jobId}:${i}`).slice(0, 16);
      out += `{${item},"status":"succeeded","output":{"job_id":${id},"index":${i},"value":"${value}"}}\n`;
    }
  }
  // A row that is no item at all: the kind of line a careless batch writer leaves behind and a client must reject.
  if (b.error_row) out += '{"status":"error","error":{"code":"internal_error","message":"worker crashed while writing results"}}\n';
  return out;
}

export function resultDescriptor(jobId: string, b: Behavior): JobResult {
  const body = renderResults(jobId, b);
  return {
    url: `/v1/jobs/${jobId}/results`,
    sha256: sha256Hex(body),
    content_type: 'application/x-ndjson',
    size: Buffer.byteLength(body),
    items_total: b.items,
    items_failed: b.items_failed,
  };
}

export interface ServedResults {
  body: string;
  contentDigest: string;
}

/** What goes on the wire. With `corrupt_digest` the body is altered after its digest was taken. */
export function servedResults(jobId: string, b: Behavior): ServedResults {
  const body = renderResults(jobId, b);
  const contentDigest = `sha-256=:${sha256Base64(body)}:`;
  if (!b.corrupt_digest) return { body, contentDigest };
  const corrupted = body.length > 0 ? body.replace(/"value":"(.)/, (_m, c: string) => `"value":"${c === 'x' ? 'y' : 'x'}`) : '{}\n';
  return { body: corrupted === body ? `${body}{}\n` : corrupted, contentDigest };
}

/** Past the behaviour's `results_ttl_ms` since the job finished: the results are gone, whatever API asks for them. */
export function resultsExpired(job: { behavior: Behavior; finished_at: number | null }, now: number): boolean {
  const ttl = job.behavior.results_ttl_ms;
  return ttl !== null && job.finished_at !== null && now >= job.finished_at + ttl;
}
