import type { JobRow } from '../../store/jobs-repo.js';
import { lineDigest, lineOutcomes, resultOrder, unixSeconds, type LineOutcome } from '../lines.js';
import { responseBody } from './answers.js';
import type { BatchRequest, BatchRow } from '../store.js';

function line(batch: BatchRow, r: BatchRequest, outcome: LineOutcome, created: number): Record<string, unknown> {
  const d = lineDigest(r);
  const base = { id: `batch_req_${d.slice(0, 24)}`, custom_id: r.custom_id };
  const requestId = `req_${d.slice(24, 56)}`;
  switch (outcome) {
    case 'succeeded':
      return {
        ...base,
        response: { status_code: 200, request_id: requestId, body: responseBody(batch.endpoint ?? '', r, created) },
        error: null,
      };
    case 'errored':
      return {
        ...base,
        response: {
          status_code: 500,
          request_id: requestId,
          body: {
            error: {
              message: 'The request failed (simulated by the batch behaviour: items_failed).',
              type: 'server_error',
              param: null,
              code: null,
            },
          },
        },
        error: null,
      };
    case 'canceled':
      return {
        ...base,
        response: null,
        error: { code: 'batch_cancelled', message: 'This request was not executed because the batch was cancelled.' },
      };
    default:
      return {
        ...base,
        response: null,
        error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
      };
  }
}

/**
 * The batch's output file (`output`: the requests that succeeded) or error file (`error`: those that failed, were
 * cancelled or expired), JSONL in no promised order. Only meaningful once the batch ended.
 */
export function renderOutputFile(job: JobRow, batch: BatchRow, requests: BatchRequest[], role: 'output' | 'error', now: number): string {
  const outcomes = lineOutcomes(job, requests.length, now);
  const created = unixSeconds(job.finished_at ?? now);
  const lines: string[] = [];
  for (const i of resultOrder(batch.batch_id, requests)) {
    const o = outcomes[i]!;
    if ((role === 'output') !== (o === 'succeeded')) continue;
    lines.push(`${JSON.stringify(line(batch, requests[i]!, o, created))}\n`);
  }
  return lines.join('');
}
