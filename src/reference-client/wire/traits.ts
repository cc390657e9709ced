import type { Dialect, WireApi } from '../../contract/journal.js';
import type { Profile } from '../../contract/profiles.js';

/** How the token travels: `Authorization: Bearer`, an API-key header (with a scheme such as `Token`), or not at all. */
export type WireAuth = 'bearer' | { readonly header: string; readonly scheme?: string } | 'none';

/**
 * What the durable machinery must know about a wire API besides its requests: plain data, no code and no schemas,
 * so that a `client show` process (which loads no adapter) can read it too. Every adapter carries its traits
 * (`WireAdapter extends WireTraits`): the built-in dialects from the table below, a profile adapter from its profile
 * (`profileTraits`, profiles.md rows "idempotency", "webhooks", "auth").
 */
export interface WireTraits {
  /** The API's name as the journal records it (`JOBPROOF_DIALECT`: a dialect, or a profile's name). */
  readonly dialect: WireApi;
  readonly auth: WireAuth;
  /**
   * A create carries the operation's idempotency key, so replaying it after a lost create cannot make a second job:
   * reconciliation replays the key and holds the answer to what `find` showed. Without keys the job `find` shows is
   * adopted and never created again, and the operation record shows no key (`null`: the stored one is never sent).
   */
  readonly idempotencyKeys: boolean;
  /** A create names the URL its webhooks go to; otherwise webhooks (if any) are configured outside the request. */
  readonly webhookPerJob: boolean;
}

/** The built-in APIs' traits (docs/spec/dialects.md): native /v1/jobs, OpenAI Batch, Anthropic Message Batches. */
export const BUILT_IN_TRAITS: Readonly<Record<Dialect, WireTraits>> = {
  native: { dialect: 'native', auth: 'bearer', idempotencyKeys: true, webhookPerJob: true },
  // OpenAI's webhooks are configured per project; Anthropic has none.
  openai: { dialect: 'openai', auth: 'bearer', idempotencyKeys: false, webhookPerJob: false },
  anthropic: { dialect: 'anthropic', auth: { header: 'x-api-key' }, idempotencyKeys: false, webhookPerJob: false },
};

/**
 * A profile's traits, read from its data alone. A client-chosen job id is a key too: a retried create meets `taken`
 * and cannot make a second job. Webhooks stay off: the receiver reads Standard Webhooks events in the native shape
 * only, and a profile client is certified on polling (a webhook is a hint to read sooner, never a fact).
 */
export function profileTraits(p: Pick<Profile, 'name' | 'auth' | 'idempotency'>): WireTraits {
  const a = p.auth;
  const auth: WireAuth = a.type === 'bearer' ? 'bearer' : a.type === 'none' ? 'none' : { header: a.name, scheme: a.scheme };
  return { dialect: p.name, auth, idempotencyKeys: p.idempotency.source !== 'none', webhookPerJob: false };
}
