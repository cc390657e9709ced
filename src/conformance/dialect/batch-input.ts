import { createHash } from 'node:crypto';
import type { SubmitInput } from '../../contract/client-protocol.js';
import { DialectSchema, type Dialect } from '../../contract/journal.js';

/**
 * The `submit` input of an operation in a wire dialect (spec/dialects.md, "Clients under test"): the batch the client
 * must run, with `custom_id`s unique across operations so that the judge links batches to operations by them and
 * asks the client for nothing jobproof-specific.
 */
export type ClientDialect = Dialect;
export const CLIENT_DIALECTS: readonly Dialect[] = DialectSchema.options;

/** How many requests a batch gets when the scenario's behaviour does not say (the native default of `items`). */
export const DEFAULT_BATCH_REQUESTS = 10;

/**
 * `<op>-<n>`: Anthropic allows 1–64 of [A-Za-z0-9_-]. An operation id with other characters (or too long) is
 * cleaned and given a short hash of the original, so two ids never clean to the same prefix.
 */
export function customIdsFor(operationId: string, n: number): string[] {
  let prefix = operationId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  if (prefix !== operationId) prefix = `${prefix}_${createHash('sha256').update(operationId).digest('hex').slice(0, 8)}`;
  return Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
}

function prompt(op: SubmitInput, i: number): string {
  return `${op.kind} ${JSON.stringify(op.input)} part ${i + 1}`;
}

/** The batch a dialect client is given as `input`; native operations pass through unchanged. */
export function dialectSubmission(dialect: ClientDialect, op: SubmitInput, requests: number): SubmitInput {
  if (dialect === 'native') return op;
  const ids = customIdsFor(op.operation_id, Math.max(1, requests));
  if (dialect === 'openai') {
    const url = '/v1/chat/completions';
    return {
      ...op,
      input: {
        endpoint: url,
        requests: ids.map((custom_id, i) => ({
          custom_id,
          method: 'POST',
          url,
          body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt(op, i) }] },
        })),
      },
    };
  }
  return {
    ...op,
    input: {
      requests: ids.map((custom_id, i) => ({
        custom_id,
        params: { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: prompt(op, i) }] },
      })),
    },
  };
}

/** The `custom_id`s of a dialect submission's batch (empty for a native input). */
export function customIdsOf(input: Record<string, unknown>): string[] {
  const reqs = input.requests;
  if (!Array.isArray(reqs)) return [];
  return reqs.flatMap((r) =>
    r && typeof r === 'object' && typeof (r as { custom_id?: unknown }).custom_id === 'string'
      ? [(r as { custom_id: string }).custom_id]
      : [],
  );
}
