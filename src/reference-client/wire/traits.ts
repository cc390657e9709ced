import type { Dialect } from '../../contract/journal.js';

/**
 * What the durable machinery must know about a wire API besides its requests: plain data, no code and no schemas,
 * so that a `client show` process (which loads no adapter) can read it too. Every adapter carries its traits
 * (`WireAdapter extends WireTraits`); a profile adapter takes them from its profile (profiles.md rows "idempotency",
 * "webhooks", "auth").
 */
export interface WireTraits {
  /** The API's name as the journal records it (`JOBPROOF_DIALECT`). */
  readonly dialect: Dialect;
  /** How the token travels: `Authorization: Bearer` or an `x-api-key` header. */
  readonly auth: 'bearer' | 'x-api-key';
  /**
   * A create carries the operation's idempotency key, so replaying it after a lost create cannot make a second job:
   * reconciliation replays the key and holds the answer to what `find` showed. Without keys the job `find` shows is
   * adopted and never created again, and the operation record shows no key (the stored one is never sent).
   */
  readonly idempotencyKeys: boolean;
  /** A create names the URL its webhooks go to; otherwise webhooks (if any) are configured outside the request. */
  readonly webhookPerJob: boolean;
  /**
   * Where a webhook event names its job: the path of the job id in the event's JSON (native `data.job_id`, OpenAI's
   * thin events `data.id`), or null for an API that sends no webhooks.
   */
  readonly webhookJobId: readonly string[] | null;
}

/** The built-in APIs' traits (docs/spec/dialects.md): native /v1/jobs, OpenAI Batch, Anthropic Message Batches. */
export const BUILT_IN_TRAITS: Readonly<Record<Dialect, WireTraits>> = {
  native: { dialect: 'native', auth: 'bearer', idempotencyKeys: true, webhookPerJob: true, webhookJobId: ['data', 'job_id'] },
  // OpenAI's webhooks are configured per project, its batch events carry the batch id alone; Anthropic has none.
  openai: { dialect: 'openai', auth: 'bearer', idempotencyKeys: false, webhookPerJob: false, webhookJobId: ['data', 'id'] },
  anthropic: { dialect: 'anthropic', auth: 'x-api-key', idempotencyKeys: false, webhookPerJob: false, webhookJobId: null },
};
