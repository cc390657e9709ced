import type { JobRow } from '../../store/jobs-repo.js';
import { lineDigest, lineOutcomes, resultOrder, type LineOutcome } from '../lines.js';
import type { BatchRequest, BatchRow } from '../store.js';
import { paramsProblem } from './model.js';

function errored(type: string, message: string, d: string): Record<string, unknown> {
  return { type: 'errored', error: { type: 'error', error: { type, message }, request_id: `req_${d.slice(24, 48)}` } };
}

function result(r: BatchRequest, outcome: LineOutcome): Record<string, unknown> {
  const d = lineDigest(r);
  switch (outcome) {
    case 'succeeded': {
      const input = 5 + (Number.parseInt(d.slice(0, 2), 16) % 40);
      const output = 5 + (Number.parseInt(d.slice(2, 4), 16) % 40);
      return {
        type: 'succeeded',
        message: {
          id: `msg_${d.slice(0, 24)}`,
          type: 'message',
          role: 'assistant',
          model: r.body.model,
          content: [{ type: 'text', text: `jobproof answer ${d.slice(0, 16)}`, citations: null }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          stop_details: null,
          // Every key the SDK's `Usage` requires; a batch's requests run on the `batch` tier.
          usage: {
            input_tokens: input,
            output_tokens: output,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
            output_tokens_details: null,
            server_tool_use: null,
            service_tier: 'batch',
            inference_geo: null,
            speed: null,
          },
          container: null,
          diagnostics: null,
        },
      };
    }
    case 'errored': {
      const bad = paramsProblem(r.body);
      return bad
        ? errored('invalid_request_error', bad, d)
        : errored('api_error', 'The request failed (simulated by the batch behaviour).', d);
    }
    case 'canceled':
      return { type: 'canceled' };
    default:
      return { type: 'expired' };
  }
}

/** The results JSONL of an ended batch: one line per request, `{custom_id, result}`, in no promised order. */
export function renderResults(job: JobRow, batch: BatchRow, requests: BatchRequest[], now: number): string {
  const outcomes = lineOutcomes(job, requests.length, now, batch.invalid_lines);
  return resultOrder(batch.batch_id, requests)
    .map((i) => `${JSON.stringify({ custom_id: requests[i]!.custom_id, result: result(requests[i]!, outcomes[i]!) })}\n`)
    .join('');
}
