import { getPath } from '../../contract/profile-template.js';
import type { Profile, ProfileRoute } from '../../contract/profiles.js';
import type { CallSpec } from '../http.js';
import type { OperationRow } from '../types.js';

/**
 * The requests a profile's routes take, built from the record alone (an adapter keeps no state): the create body is
 * `submit`'s input (profiles.md: the request body the API takes) with the fields the client owns written in — the
 * idempotency key where the API takes it in the body, the client reference, the client-chosen job id — so every
 * create of one operation is the same request.
 */
type Rec = Pick<OperationRow, 'operation_id' | 'idempotency_key' | 'input'>;

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    cur[part] = next && typeof next === 'object' && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** The job id the client chooses (`id.source: body`): the input's natural key when it names one, else the operation's key. */
export function chosenId(p: Profile, r: Rec): string | null {
  if (p.id.source !== 'body') return null;
  const v = getPath(r.input, p.id.field);
  return typeof v === 'string' && v !== '' ? v : r.idempotency_key;
}

/**
 * The operation's reference as the create body carries it (`create.client_ref`): the key when the key is that
 * field, else the input's value when the caller set one, else the operation id.
 */
export function clientRefOf(p: Profile, r: Rec): string | null {
  const field = p.create.client_ref;
  if (!field) return null;
  const i = p.idempotency;
  if (i.source === 'body' && i.name === field) return r.idempotency_key;
  const v = getPath(r.input, field);
  return typeof v === 'string' && v !== '' ? v : r.operation_id;
}

/** The create body: the input with the key, the client reference and a chosen id written where the profile puts them. */
export function createBody(p: Profile, r: Rec): Record<string, unknown> {
  const body: Record<string, unknown> = { ...r.input };
  const ref = clientRefOf(p, r);
  if (ref !== null) setPath(body, p.create.client_ref!, ref);
  if (p.idempotency.source === 'body') setPath(body, p.idempotency.name, r.idempotency_key);
  const id = chosenId(p, r);
  if (id !== null && p.id.source === 'body') setPath(body, p.id.field, id);
  return body;
}

/**
 * A path parameter other than the job id (`{model}` in `/models/{model}:batchGenerateContent`): the create body's
 * field of that name, at its top level or deepest first found (`batch.model`), without the collection the path
 * already names (`models/gemini-2.5-flash` → `gemini-2.5-flash`); `-` (AIP-159's "any") when the body has none.
 */
function paramOf(name: string, body: unknown, before: string): string {
  const find = (v: unknown, depth: number): unknown => {
    if (!v || typeof v !== 'object' || depth > 4) return undefined;
    const o = v as Record<string, unknown>;
    if (typeof o[name] === 'string') return o[name];
    for (const child of Object.values(o)) {
      const f = find(child, depth + 1);
      if (f !== undefined) return f;
    }
    return undefined;
  };
  const raw = find(body, 0);
  if (typeof raw !== 'string' || raw === '') return '-';
  const collection = /([A-Za-z][\w-]*)\/$/.exec(before)?.[1];
  const value = collection && raw.startsWith(`${collection}/`) ? raw.slice(collection.length + 1) : raw;
  return encodeURIComponent(value);
}

/** A route's path from the server root, for a job id (and the create body's other path parameters). */
export function routePath(p: Profile, route: ProfileRoute, id: string | null, body?: unknown): string {
  const parts = route.path.split(/(\{\w+\})/);
  const path = parts
    .map((part, i) => {
      if (part === '{id}') return encodeURIComponent(id ?? '');
      return /^\{\w+\}$/.test(part) ? paramOf(part.slice(1, -1), body, parts[i - 1] ?? '') : part;
    })
    .join('');
  return `${p.prefix}${path}`;
}

/** A request on a route: its method, path and the header that names the operation where the API chooses it so. */
export function routeSpec(
  p: Profile,
  route: ProfileRoute,
  name: CallSpec['route'],
  id: string | null,
  extra: { body?: unknown; headers?: Record<string, string>; query?: string } = {},
): Omit<CallSpec, 'traceId'> {
  const headers = { ...extra.headers, ...(route.operation ? { [route.operation.header]: route.operation.value } : {}) };
  // A route with no `{id}` in its path takes the id in its body (AWS `TranscriptionJobName`).
  let body = extra.body;
  if (id !== null && route.id_field && !route.path.includes('{id}')) {
    body = { ...(body as Record<string, unknown> | undefined) };
    setPath(body as Record<string, unknown>, route.id_field, id);
  }
  const method = route.method;
  return {
    route: name,
    method,
    path: `${routePath(p, route, id, extra.body)}${extra.query ? `?${extra.query}` : ''}`,
    ...(body !== undefined ? { body } : method !== 'GET' && method !== 'DELETE' ? { body: {} } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
}

export function createSpec(p: Profile, r: Rec): Omit<CallSpec, 'traceId'> {
  const body = createBody(p, r);
  const headers = p.idempotency.source === 'header' ? { [p.idempotency.name]: r.idempotency_key } : {};
  return routeSpec(p, p.create.route, 'create', null, { body, headers });
}
