import type { Scenario } from '../../scenarios/index.js';
import type { ClientDialect } from './batch-input.js';

/**
 * Catalog scenarios whose fault a wire dialect cannot express (docs/dialects.md, "What maps to what"): they are
 * `not_applicable` there, with the reason, never run and silently passed. Everything else runs as it is, on the
 * same fault rules (route names are shared by every dialect).
 */
const NO_DIGEST = 'neither the OpenAI nor the Anthropic API sends a results digest: a digest mismatch cannot be expressed';
const NO_ERROR_ROW =
  "a results line that is no request of the batch would break every real client's parser and the real APIs never send one: not expressible";
const NO_REPLAY = 'the API takes no idempotency key, so there is no replayed create to answer with a foreign batch id';
const NO_WEBHOOKS = 'the Anthropic Message Batches API sends no webhooks';
const NO_HELD_KEY =
  'the API takes no idempotency key: a create held past the client giving up cannot be told from no create, so a client either creates again or waits without end; the scenario judges what a key lets a client know';

const NO_KEY_IN_FLIGHT =
  'the API takes no idempotency key: no second create can meet the first still in flight under the same key (no 409 idempotency_request_in_progress)';

const TABLE: Record<string, Partial<Record<Exclude<ClientDialect, 'native'>, string>>> = {
  'corrupt-result': { openai: NO_DIGEST, anthropic: NO_DIGEST },
  'error-row': { openai: NO_ERROR_ROW, anthropic: NO_ERROR_ROW },
  'foreign-job-id': { openai: NO_REPLAY, anthropic: NO_REPLAY },
  'cancel-while-create-held': { openai: NO_HELD_KEY, anthropic: NO_HELD_KEY },
  'duplicate-webhook': { anthropic: NO_WEBHOOKS },
  'out-of-order-webhooks': { anthropic: NO_WEBHOOKS },
  'dropped-webhooks': { anthropic: NO_WEBHOOKS },
  'create-in-flight': { openai: NO_KEY_IN_FLIGHT, anthropic: NO_KEY_IN_FLIGHT },
  'forged-webhook': { anthropic: NO_WEBHOOKS },
};

/** Why the scenario means nothing in the dialect, or null when it runs there. */
export function notApplicableIn(dialect: ClientDialect, s: Pick<Scenario, 'name'>): string | null {
  if (dialect === 'native') return null;
  return TABLE[s.name]?.[dialect] ?? null;
}
