import { whole } from '../contract/profile-template.js';
import type { ProfileInput, ProfileTemplate } from '../contract/profiles.js';
import { type OpenApiDoc, type Shape, shapeOf } from './openapi-read.js';
import type { ListFound, Op } from './routes.js';
import { fillRequired } from './view.js';

/**
 * How retries are made safe (an idempotency header or body field the create takes) and how a lost create is found
 * again (the list route, its paging and any filter by the same key or a client reference).
 */
const KEY_HEADERS =
  /^(idempotency-key|x-idempotency-key|operation-id|repeatability-request-id|idempotency-token|x-request-id-idempotent)$/i;
const KEY_FIELDS = /^(request_?id|requestId|client_?token|clientRequestToken|ClientRequestToken|idempotency_?key|idempotencyKey)$/;
const CLIENT_REF = /^(client_?ref(erence)?|clientReference|custom_?id|external_?id|reference)$/i;
const SIZE = /^(limit|page_?size|pageSize|maxpagesize|max_?results|maxResults|top|per_?page)$/i;
const TOKEN =
  /^(page_?token|pageToken|cursor|after|starting_?after|continuation_?token|continuationToken|next_?token|nextToken|skip_?token|after_id|before_id|page|offset)$/i;
const NEXT_TOKEN = /^(next_?page_?token|nextPageToken|next_?token|nextToken|next_?cursor|cursor|last_?id|after)$/i;
const NEXT_URL = /^(next_?link|nextLink|next_?url|next|@odata\.nextLink)$/i;

export type IdempotencyDraft = { idempotency: ProfileInput['idempotency']; from?: string; keyName?: string };

export function draftIdempotency(create: Op, request: Shape | undefined): IdempotencyDraft {
  const header = create.params.find((p) => p.in === 'header' && typeof p.name === 'string' && KEY_HEADERS.test(p.name));
  if (header) {
    const name = String(header.name);
    return { idempotency: { source: 'header', name, required: header.required === true }, from: `header parameter ${name}`, keyName: name };
  }
  const field = Object.keys(request?.properties ?? {}).find((n) => KEY_FIELDS.test(n));
  if (field)
    return {
      idempotency: { source: 'body', name: field, required: request!.required.includes(field) },
      from: `body field ${field}`,
      keyName: field,
    };
  return { idempotency: { source: 'none' } };
}

export const clientRefOf = (request: Shape | undefined) => Object.keys(request?.properties ?? {}).find((n) => CLIENT_REF.test(n));

export interface FindDraft {
  find: NonNullable<ProfileInput['find']>;
  /** Query parameters that look a job up by the key or client reference. */
  filtered: boolean;
  /** Paging fields of the answer the format cannot fill (`has_more`), kept as constants. */
  constants: string[];
}

export function draftFind(doc: OpenApiDoc, list: ListFound, path: string, keyName?: string, clientRef?: string): FindDraft {
  const query = list.op.params.filter((p) => p.in === 'query' && typeof p.name === 'string').map((p) => String(p.name));
  const filters: NonNullable<ProfileInput['find']>['filters'] = [];
  for (const q of query) {
    if (keyName && q.toLowerCase() === keyName.toLowerCase()) filters.push({ param: q, by: 'idempotency_key' });
    else if (clientRef && q.toLowerCase() === clientRef.toLowerCase()) filters.push({ param: q, by: 'client_ref' });
  }
  const constants: string[] = [];
  const body = pageBody(doc, list.answer.body, list.itemsAt, constants);
  const page: NonNullable<ProfileInput['find']>['page'] = {};
  const size = query.find((q) => SIZE.test(q));
  const token = query.find((q) => TOKEN.test(q));
  if (size) page.size_param = size;
  if (token) page.token_param = token;
  return { find: { route: { method: 'GET', path }, filters, page, body }, filtered: filters.length > 0, constants };
}

function pageBody(doc: OpenApiDoc, s: Shape, itemsAt: string, constants: string[], depth = 0): Record<string, ProfileTemplate> {
  const given: Record<string, ProfileTemplate> = {};
  for (const [name, node] of Object.entries(s.properties)) {
    const p = shapeOf(doc, node);
    if (depth === 0 && name === itemsAt) given[name] = whole('items');
    else if (NEXT_URL.test(name)) given[name] = whole('next_page_url');
    else if (NEXT_TOKEN.test(name)) given[name] = whole('next_page_token');
    else if (/^has_?more$|^hasMore$/i.test(name)) {
      given[name] = false;
      constants.push(name);
    } else if (depth === 0 && p.types.includes('object') && Object.keys(p.properties).some((k) => NEXT_URL.test(k) || NEXT_TOKEN.test(k)))
      given[name] = pageBody(doc, p, itemsAt, constants, 1);
  }
  return fillRequired(doc, s, given);
}
