import type { JobRow } from '../../store/jobs-repo.js';
import { lineDigest, lineOutcomes, resultOrder, unixSeconds, type LineOutcome } from '../lines.js';
import type { BatchRequest, BatchRow } from '../store.js';

function tokens(d: string, at: number): number {
  return 5 + (Number.parseInt(d.slice(at, at + 2), 16) % 40);
}

/** A plausible answer of the batch's endpoint, a pure function of the input line (and the batch's end time). */
function responseBody(endpoint: string, r: BatchRequest, d: string, created: number): Record<string, unknown> {
  const model = typeof r.body.model === 'string' ? r.body.model : 'gpt-4o-mini';
  const text = `jobproof answer ${d.slice(0, 16)}`;
  const input = tokens(d, 0);
  const output = tokens(d, 2);
  switch (endpoint) {
    case '/v1/chat/completions':
      return {
        id: `chatcmpl-${d.slice(0, 24)}`,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
    case '/v1/embeddings':
      return {
        object: 'list',
        model,
        data: [{ object: 'embedding', index: 0, embedding: [0, 2, 4, 6].map((i) => Number.parseInt(d.slice(i, i + 2), 16) / 255) }],
        usage: { prompt_tokens: input, total_tokens: input },
      };
    case '/v1/responses':
      return {
        id: `resp_${d.slice(0, 24)}`,
        object: 'response',
        created_at: created,
        status: 'completed',
        model,
        output: [
          {
            type: 'message',
            id: `msg_${d.slice(24, 48)}`,
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text, annotations: [] }],
          },
        ],
        usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
      };
    default:
      return {
        id: `cmpl-${d.slice(0, 24)}`,
        object: 'text_completion',
        created,
        model,
        choices: [{ index: 0, text, finish_reason: 'stop', logprobs: null }],
      };
  }
}

function line(batch: BatchRow, r: BatchRequest, outcome: LineOutcome, created: number): Record<string, unknown> {
  const d = lineDigest(r);
  const base = { id: `batch_req_${d.slice(0, 24)}`, custom_id: r.custom_id };
  const requestId = `req_${d.slice(24, 56)}`;
  switch (outcome) {
    case 'succeeded':
      return {
        ...base,
        response: { status_code: 200, request_id: requestId, body: responseBody(batch.endpoint ?? '', r, d, created) },
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
