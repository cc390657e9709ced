import { whole } from '../../contract/profile-template.js';
import type { Profile } from '../../contract/profiles.js';
import type { ClientDialect } from './batch-input.js';

/**
 * What a wire API can express that some catalog scenario needs. A dialect is a profile whose capabilities are fixed
 * (the real OpenAI and Anthropic APIs); a profile declares its own, and they are read from its declarations here.
 */
export type Capability = 'idempotency_key' | 'lookup' | 'cancel' | 'webhooks' | 'digest' | 'error_row';
export const CAPABILITIES: readonly Capability[] = ['idempotency_key', 'lookup', 'cancel', 'webhooks', 'digest', 'error_row'];

/** Each capability the API lacks, with why in the API's terms; a capability not named is there. */
export type Lacks = Partial<Record<Capability, string>>;

const BATCH_APIS: Lacks = {
  idempotency_key: 'the API takes no idempotency key',
  digest: 'neither the OpenAI nor the Anthropic API sends a results digest',
  error_row: "a results line that is no request of the batch would break every real client's parser and the real APIs never send one",
};

const DIALECT_LACKS: Record<ClientDialect, Lacks> = {
  native: {},
  openai: BATCH_APIS,
  anthropic: { ...BATCH_APIS, webhooks: 'the Anthropic Message Batches API sends no webhooks' },
};

/** What a profile lacks, read from what it declares. */
export function profileLacks(p: Profile): Lacks {
  const lacks: Lacks = {};
  const i = p.idempotency;
  if (i.source === 'none') lacks.idempotency_key = 'the API takes no idempotency key';
  else if (i.source === 'client_id')
    lacks.idempotency_key =
      "the API's only key is the client-chosen job id, which stores no answer to replay and holds no create in flight";
  if (!p.find && p.id.source !== 'body') lacks.lookup = 'the API has no lookup route';
  if (!p.cancel) lacks.cancel = 'the API has no cancel';
  else if ('unsupported' in p.cancel) lacks.cancel = `the API answers every cancel with ${p.cancel.unsupported.status}`;
  if (!p.webhooks) lacks.webhooks = 'the API sends no webhooks';
  // The results body a client checks is served by the results route; items inside the view are consistent with the
  // view's digest by construction. One row too many shows only against an announced count: the items' shape is the
  // API's own, which a generic client cannot hold a row to.
  const view = JSON.stringify(p.view);
  const served = p.results.mode === 'route' && p.results.format === 'ndjson';
  if (!served) lacks.digest = 'the API hands the results out as JSON items, consistent with any digest it shows';
  else if (!view.includes(whole('result.sha256')) && !p.results.digest_header) lacks.digest = 'the API announces no results digest';
  if (!view.includes(whole('result.items_total')) && !(served && p.results.count_headers))
    lacks.error_row = 'the API announces no item count the results could be held to';
  return lacks;
}

/** What the API (a dialect by name, or a profile) lacks. */
export function apiLacks(api: ClientDialect | Profile): Lacks {
  return typeof api === 'string' ? DIALECT_LACKS[api] : profileLacks(api);
}

/** The API's name as reports and the journal give it. */
export function apiName(api: ClientDialect | Profile): string {
  return typeof api === 'string' ? api : api.name;
}
