import { z } from 'zod';
import { JOB_STATES } from './jobs.js';
import { PROFILE_NAME } from './journal.js';

/**
 * An API profile (profiles.md): a declarative description of an asynchronous job API from which the provider serves
 * it on its one engine, and from which a client adapter can read it back. Answers are JSON templates: a string that
 * is exactly `${name}` becomes that value (any JSON type; `${name?}` drops its key when the value is null), any other
 * `${name}` inside a string is interpolated. The same template tells a reader where each fact sits (the path of the
 * leaf holding `${id}`, `${state}`, …), so serving and reading never disagree. Route paths are OpenAPI templates
 * with `{id}`. Field paths are dotted (`metadata.state`).
 */

const EngineState = z.enum(JOB_STATES);
/** Where a refusal's status or code may be changed: jobproof's stable error codes. */
const ErrorCode = z.string().regex(/^[a-z_]+$/, 'a jobproof error code such as job_not_found');
const FieldPath = z.string().regex(/^[A-Za-z_$@][\w$@-]*(\.[A-Za-z_$@][\w$@-]*)*$/, 'a dotted field path such as metadata.state');
const Method = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const RoutePath = z.string().regex(/^\/[^\s?#]*$/, 'a path template starting with / (no query), e.g. /v1/reports/{id}');
const HeaderName = z.string().regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name');
/** A JSON template (see above). */
export const TemplateSchema = z.json();
const Status = z.number().int().min(200).max(599);

const Route = z.strictObject({
  method: Method,
  path: RoutePath,
  /** An operation chosen by a header instead of the path (AWS `X-Amz-Target: Transcribe.GetTranscriptionJob`). */
  operation: z.strictObject({ header: HeaderName, value: z.string().min(1) }).optional(),
  /** Where the job id is when the path has no `{id}` (a body field of the request: AWS `TranscriptionJobName`). */
  id_field: FieldPath.optional(),
});

export const ProfileAuthSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer') }),
  /** An API-key header (`x-api-key`, `api-key`); `scheme` when its value has one (`Token <key>`). */
  z.strictObject({ type: z.literal('header'), name: HeaderName, scheme: z.string().optional() }),
  /** No credentials: every request acts as this token's principal. */
  z.strictObject({ type: z.literal('none'), token: z.string().default('dev-token') }),
]);

export const ProfileIdSchema = z.discriminatedUnion('source', [
  /** The provider names the job: a fresh opaque id with this prefix. */
  z.strictObject({
    source: z.literal('generated'),
    prefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]{0,20}$/)
      .default('job_'),
  }),
  /** The client names it in the create body (a natural key); a second create with a taken name is refused. */
  z.strictObject({
    source: z.literal('body'),
    field: FieldPath,
    pattern: z.string().default('^[A-Za-z0-9._-]{1,200}$'),
    taken: z.strictObject({ status: Status.default(409), code: ErrorCode.default('job_exists') }).prefault({}),
  }),
]);

export const ProfileStateSchema = z.strictObject({
  /** Every value the API documents, onto the engine's states (several values may name one state). */
  values: z.record(z.string(), EngineState),
  /** The value served for an engine state no value names (an API without `cancelling` shows it as running). */
  serve_as: z.partialRecord(EngineState, z.string()).default({}),
  /**
   * When the API has no state field (AIP-151): rules read top to bottom, the first whose fields all match gives the
   * state. A field value `"$present"` / `"$absent"` matches any value / no value.
   */
  derived: z.array(z.strictObject({ when: z.record(FieldPath, z.json()), state: EngineState })).optional(),
});

export const ProfileErrorsSchema = z.strictObject({
  content_type: z.string().default('application/json'),
  /** The envelope: `${status}`, `${code}` (after `codes`), `${message}`, `${title}`, `${request_id}`, `${type}`. */
  body: TemplateSchema,
  /** jobproof code → the API's code (`job_not_found` → `NOT_FOUND`); unlisted codes pass through. */
  codes: z.record(ErrorCode, z.union([z.string(), z.number()])).default({}),
  /** jobproof code → the API's status for that refusal, where it differs. */
  statuses: z.record(ErrorCode, Status).default({}),
  /** Where a refusal's extras (`errors`, `job`) go: merged at the envelope's root, or dropped. */
  extras: z.enum(['merge', 'drop']).default('drop'),
});

export const ProfileIdempotencySchema = z.discriminatedUnion('source', [
  z.strictObject({ source: z.literal('none') }),
  z.strictObject({
    source: z.enum(['header', 'body']),
    /** The header name (`Idempotency-Key`, `Operation-Id`, `Repeatability-Request-ID`) or body field (`request_id`). */
    name: z.string().min(1),
    required: z.boolean().default(false),
    /** The answer to a reused key with another body. */
    reuse: z.strictObject({ status: Status.default(422), code: ErrorCode.default('idempotency_key_reused') }).prefault({}),
    /** A header a replayed answer carries (`Idempotent-Replayed: true`), if the API sends one. */
    replay_header: HeaderName.optional(),
    window_s: z.number().int().min(1).default(86400),
  }),
  /** The client-chosen job id is the key (`id.source: body`): a retried create meets `taken`. */
  z.strictObject({ source: z.literal('client_id') }),
]);

const Page = z.strictObject({
  /** Where the page parameters travel: the query string, or the JSON body (AWS `MaxResults`, `NextToken`). */
  in: z.enum(['query', 'body']).default('query'),
  size_param: z.string().default('limit'),
  token_param: z.string().default('cursor'),
  default_size: z.number().int().min(1).default(20),
  max_size: z.number().int().min(1).default(100),
});

export const ProfileFindSchema = z.strictObject({
  route: Route,
  /** Query parameters that find a lost create; `pattern` extracts the value from a filter expression (`request_id="{value}"`). */
  filters: z
    .array(
      z.strictObject({
        param: z.string().min(1),
        in: z.enum(['query', 'body']).default('query'),
        by: z.enum(['client_ref', 'idempotency_key', 'id_prefix', 'id_contains']),
        pattern: z.string().optional(),
      }),
    )
    .default([]),
  page: Page.prefault({}),
  /** The list answer: `${items}` (the views) and `${next_page_token}`. */
  body: TemplateSchema,
});

export const ProfileCancelSchema = z.union([
  z.strictObject({
    route: Route,
    status: Status.default(200),
    /** The answer: a template (usually `"${view}"`), or null for an empty body. */
    body: TemplateSchema.nullable(),
    /** Engine states it may be asked in; other states get `refused`. */
    from: z.array(EngineState).default(['queued', 'running', 'cancelling']),
    /** On a job it may not cancel: an error (`job_terminal`), or the view with this status. */
    refused: z
      .discriminatedUnion('answer', [
        z.strictObject({ answer: z.literal('error'), status: Status.default(409), code: ErrorCode.default('job_terminal') }),
        z.strictObject({ answer: z.literal('view'), status: Status.default(200) }),
      ])
      .prefault({ answer: 'error' }),
  }),
  /** The API has no cancel (Textract): requests to this route get this status. */
  z.strictObject({ unsupported: z.strictObject({ route: Route, status: z.union([z.literal(405), z.literal(501)]) }) }),
]);

export const ProfileResultsSchema = z.strictObject({
  /** Where the client gets the items: in the final view (`${result.items}`), or from `route`. */
  mode: z.enum(['inline', 'route', 'paged']),
  route: Route.optional(),
  format: z.enum(['ndjson', 'json']).default('ndjson'),
  /** For `json`/`paged`: the answer with `${items}` and `${next_page_token}`. */
  body: TemplateSchema.optional(),
  page: Page.optional(),
  /** Send `Content-Digest` (RFC 9530) with the body. */
  digest_header: z.boolean().default(false),
  /** Send `X-Items-Total` / `X-Items-Failed` with the body (the native API does). */
  count_headers: z.boolean().default(false),
});

export const ProfileWebhooksSchema = z.strictObject({
  /** The create body's field holding the receiver URL. */
  url_field: FieldPath,
  /** The create body's field listing the events wanted; names as in `events`. */
  events_field: FieldPath.optional(),
  /** Engine event (`job.succeeded`) → the API's event name; unlisted events are not sent. */
  events: z.record(z.string().regex(/^job\.[a-z]+$/), z.string()),
  /** The payload: a template over the job (`${view}` for the whole view, `${event_id}`, `${event}`). */
  payload: TemplateSchema,
  signing: z.enum(['standard', 'none']).default('standard'),
});

export const ProfileSchema = z.strictObject({
  $schema: z.string().optional(),
  profile: z.literal(1),
  name: z.string().regex(PROFILE_NAME, 'lower-case letters, digits and -, starting with a letter'),
  description: z.string().optional(),
  /** Where the profile is served on the provider (`/profiles/reports`); routes are below it. */
  prefix: z.string().regex(/^(\/[a-z0-9._-]+)+$/, 'a path prefix such as /profiles/reports'),
  auth: ProfileAuthSchema,
  id: ProfileIdSchema,
  state: ProfileStateSchema,
  times: z.enum(['iso', 'unix_s', 'unix_ms']).default('iso'),
  /** The job as every answer shows it. */
  view: TemplateSchema,
  /** `${error}` in a view: this template for engine states with an error, per-state `code`/`message` overrides. */
  job_error: z
    .strictObject({
      template: TemplateSchema,
      states: z.partialRecord(
        EngineState,
        z.strictObject({ code: z.union([z.string(), z.number()]).optional(), message: z.string().optional() }),
      ),
    })
    .optional(),
  create: z.strictObject({
    route: Route,
    status: Status,
    /** The answer's body: a template (`${view}`, or its own object), or null for an empty answer. */
    body: TemplateSchema.nullable(),
    headers: z.record(HeaderName, z.string()).default({}),
    /** Body fields a create must carry (400 `invalid_request` otherwise). */
    required: z.array(FieldPath).default([]),
    /** The body field the client names its operation by (the judge links by it). */
    client_ref: FieldPath.optional(),
    /** The body field whose value picks the job's behaviour (`by_kind`). */
    kind: FieldPath.optional(),
    /** A job finished inside the create (a `sync` behaviour) answers with this status and body (default: `body`). */
    sync_status: Status.default(200),
    sync_body: TemplateSchema.nullable().optional(),
  }),
  read: z.strictObject({ route: Route }),
  idempotency: ProfileIdempotencySchema,
  find: ProfileFindSchema.optional(),
  cancel: ProfileCancelSchema.optional(),
  results: ProfileResultsSchema,
  retry_after: z
    .strictObject({ reads: z.boolean().default(true), min: z.number().int().min(0).default(1), max: z.number().int().min(1).default(3600) })
    .optional(),
  webhooks: ProfileWebhooksSchema.optional(),
  errors: ProfileErrorsSchema,
  /** `Prefer: wait[=n]` holds a create until the job is final or n seconds (at most `max_s`) passed. */
  sync: z.strictObject({ prefer_wait: z.boolean(), max_s: z.number().int().min(1).max(600).default(60) }).optional(),
});

export type Profile = z.output<typeof ProfileSchema>;
export type ProfileInput = z.input<typeof ProfileSchema>;
export type ProfileRoute = z.output<typeof Route>;
export type ProfileTemplate = z.output<typeof TemplateSchema>;

/** The route names of profiles.md, as fault rules name them. */
export const PROFILE_ROUTE_NAMES = ['create', 'read', 'find', 'cancel', 'results', 'webhook'] as const;

/** The published JSON Schema of a profile file (what `schemas/profile.schema.json` holds). */
export function profileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ProfileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
