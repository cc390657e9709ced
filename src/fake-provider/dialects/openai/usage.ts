import type { BatchRow, DialectRepo } from '../store.js';
import { lineTokens, modelOf } from './answers.js';

/**
 * A batch's `model` and what its `usage` sums: the token counts its output lines report. Requests run in input order
 * and an OpenAI batch's succeeded ones are a prefix of them (lines.ts), so prefix sums answer any poll in O(1). They
 * are computed once per batch (a 50,000-request batch must not be parsed on every poll) and kept per repository.
 */
export interface BatchFacts {
  model: string | null;
  /** `input[k]`, `output[k]`: tokens of the first k requests. */
  input: Float64Array;
  output: Float64Array;
}

const KEEP = 64;
const cache = new WeakMap<DialectRepo, Map<string, BatchFacts>>();

export function batchFacts(repo: DialectRepo, batch: BatchRow): BatchFacts {
  const byBatch = cache.get(repo) ?? new Map<string, BatchFacts>();
  cache.set(repo, byBatch);
  const hit = byBatch.get(batch.batch_id);
  if (hit) return hit;
  const requests = repo.requests(batch.batch_id);
  const input = new Float64Array(requests.length + 1);
  const output = new Float64Array(requests.length + 1);
  requests.forEach((r, i) => {
    const t = lineTokens(batch.endpoint ?? '', r);
    input[i + 1] = input[i]! + t.input;
    output[i + 1] = output[i]! + t.output;
  });
  const facts = { model: requests.length ? modelOf(requests[0], '') || null : null, input, output };
  if (byBatch.size >= KEEP) byBatch.delete(byBatch.keys().next().value!);
  byBatch.set(batch.batch_id, facts);
  return facts;
}

/** The Batch's `usage` once its first `succeeded` requests have answered (openai-node `BatchUsage`). */
export function batchUsage(facts: BatchFacts, succeeded: number): Record<string, unknown> {
  const k = Math.min(succeeded, facts.input.length - 1);
  const input = facts.input[k]!;
  const output = facts.output[k]!;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}
