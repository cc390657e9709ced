import { z } from 'zod';
import { PROFILE_NAME } from './journal.js';
import {
  EngineState,
  ErrorCode,
  FieldPath,
  HeaderName,
  ProfileAuthSchema,
  ProfileErrorsSchema,
  ProfileIdempotencySchema,
  ProfileIdSchema,
  ProfileStateSchema,
  Route,
  Status,
  TemplateSchema,
  v,
} from './profile-parts.js';

export {
  ProfileAuthSchema,
  ProfileErrorsSchema,
  ProfileIdempotencySchema,
  ProfileIdSchema,
  ProfileStateSchema,
  TemplateSchema,
} from './profile-parts.js';

/**
 * An API profile (profiles.md): a declarative description of an asynchronous job API from which the provider serves
 * it on its one engine, and from which a client adapter can read it back. Answers are JSON templates: a string that
 * is exactly `${name}` becomes that value (any JSON type; `${name?}` drops its key when the value is null), any other
 * `${name}` inside a string is interpolated. The same template tells a reader where each fact sits (the path of the
 * leaf holding `${id}`, `${state}`, …), so serving and reading never disagree. Route paths are OpenAPI templates
 * with `{id}`. Field paths are dotted (`metadata.state`).
 */

const Page = z
  .strictObject({
    in: z
      .enum(['query', 'body'])
      .default('query')
      .describe('Where the page parameters travel: the query string, or the JSON body (AWS `MaxResults`, `NextToken`).'),
    size_param: z.string().default('limit').describe('The page size parameter.'),
    token_param: z.string().default('cursor').describe('The parameter carrying the next page token.'),
    default_size: z.number().int().min(1).default(20).describe('The page size when none is asked.'),
    max_size: z.number().int().min(1).default(100).describe('The largest page size accepted.'),
  })
  .describe('Paging.');

export const ProfileFindSchema = z
  .strictObject({
    route: Route,
    filters: z
      .array(
        z.strictObject({
          param: z.string().min(1).describe('The query parameter or body field.'),
          in: z.enum(['query', 'body']).default('query').describe('Where it travels.'),
          by: z
            .enum(['client_ref', 'idempotency_key', 'id_prefix', 'id_contains'])
            .describe("What it matches: the create's client reference, its idempotency key, or part of the job id."),
          pattern: z.string().optional().describe('Extracts the value from a filter expression (`request_id="{value}"`).'),
        }),
      )
      .default([])
      .describe('The filters that find the job of a lost create.'),
    page: Page.prefault({}),
    body: TemplateSchema.describe(`The list answer, a template over \`${v('items')}\` (the views) and \`${v('next_page_token')}\`.`),
  })
  .describe('The list or search route that finds a lost create; omit it when the API has none.');

export const ProfileCancelSchema = z
  .union([
    z
      .strictObject({
        route: Route,
        status: Status.default(200).describe('The status of an accepted cancel.'),
        body: TemplateSchema.nullable().describe(`The answer: a template (usually \`"${v('view')}"\`), or null for an empty body.`),
        from: z
          .array(EngineState)
          .default(['queued', 'running', 'cancelling'])
          .describe('Engine states it may be asked in; other states get `refused`.'),
        refused: z
          .discriminatedUnion('answer', [
            z
              .strictObject({
                answer: z.literal('error'),
                status: Status.default(409).describe('Its status.'),
                code: ErrorCode.default('job_terminal').describe('Its jobproof error code.'),
              })
              .describe('An error with this status and code.'),
            z
              .strictObject({ answer: z.literal('view'), status: Status.default(200).describe('Its status.') })
              .describe('The view, with this status.'),
          ])
          .prefault({ answer: 'error' })
          .describe('On a job it may not cancel: an error (`job_terminal`), or the view with this status.'),
      })
      .describe('A cancel route.'),
    z
      .strictObject({
        unsupported: z
          .strictObject({ route: Route, status: z.union([z.literal(405), z.literal(501)]).describe('The refusal status.') })
          .describe('The API has no cancel (Textract): requests to this route get this status.'),
      })
      .describe('No cancel.'),
  ])
  .describe('How a job is cancelled; omit it when the API documents no cancel route at all.');

export const ProfileResultsSchema = z
  .strictObject({
    mode: z
      .enum(['inline', 'route', 'paged'])
      .describe(
        `Where the client gets the items: in the final view (\`${v('result.items')}\`), from \`route\`, or from \`route\` page by page.`,
      ),
    route: Route.optional().describe('The results route (modes `route`, `paged`).'),
    format: z.enum(['ndjson', 'json']).default('ndjson').describe("The results route's body: NDJSON lines, or JSON (`body`)."),
    body: TemplateSchema.optional().describe(
      `For \`json\`/\`paged\`: the answer, a template over \`${v('items')}\` and \`${v('next_page_token')}\`.`,
    ),
    page: Page.optional(),
    digest_header: z.boolean().default(false).describe('Send `Content-Digest` (RFC 9530) with the body.'),
    count_headers: z.boolean().default(false).describe('Send `X-Items-Total` / `X-Items-Failed` with the body (the native API does).'),
  })
  .describe("Where a finished job's output is.");

export const ProfileWebhooksSchema = z
  .strictObject({
    url_field: FieldPath.describe("The create body's field holding the receiver URL."),
    events_field: FieldPath.optional().describe("The create body's field listing the events wanted; names as in `events`."),
    events: z
      .record(z.string().regex(/^job\.[a-z]+$/), z.string())
      .describe("Engine event (`job.succeeded`) → the API's event name; unlisted events are not sent."),
    payload: TemplateSchema.describe(
      `The payload, a template over the job (\`${v('view')}\` for the whole view, \`${v('event_id')}\`, \`${v('event')}\`, \`${v('at')}\`).`,
    ),
    signing: z
      .enum(['standard', 'none'])
      .default('standard')
      .describe('`standard`: Standard Webhooks headers (`webhook-id`, `-timestamp`, `-signature`); `none`: the payload alone.'),
  })
  .describe('Job events POSTed to a URL the create names; omit it when the API sends none.');

export const ProfileSchema = z
  .strictObject({
    $schema: z.string().optional().describe('The JSON Schema, for editors (`schemas/profile.schema.json`).'),
    profile: z.literal(1).describe('The format version.'),
    name: z
      .string()
      .regex(PROFILE_NAME, 'lower-case letters, digits and -, starting with a letter')
      .describe("The profile name: `serve --profile NAME`, `JOBPROOF_DIALECT`, the journal's dialect."),
    description: z.string().optional().describe('One line, shown by `profile list`.'),
    prefix: z
      .string()
      .regex(/^(\/[a-z0-9._-]+)+$/, 'a path prefix such as /profiles/reports')
      .describe('Where the profile is served on the provider (`/profiles/reports`); routes are below it.'),
    auth: ProfileAuthSchema,
    id: ProfileIdSchema,
    state: ProfileStateSchema,
    times: z.enum(['iso', 'unix_s', 'unix_ms']).default('iso').describe('How times are written: ISO 8601, unix seconds or milliseconds.'),
    view: TemplateSchema.describe(
      `The job as every answer shows it: a template (\`${v('id')}\`, \`${v('state')}\`, \`${v('progress.percent')}\`, …).`,
    ),
    job_error: z
      .strictObject({
        template: TemplateSchema.describe(`The error object, a template over \`${v('error.code')}\`, \`${v('error.message')}\`.`),
        states: z
          .partialRecord(
            EngineState,
            z.strictObject({
              code: z.union([z.string(), z.number()]).optional().describe("A fixed code (else the engine's)."),
              message: z.string().optional().describe("A fixed message (else the engine's)."),
            }),
          )
          .describe('The engine states that carry an error, each with an optional fixed code or message.'),
      })
      .optional()
      .describe(`What \`${v('error')}\` in the view is: this template for the engine states listed, null otherwise.`),
    create: z
      .strictObject({
        route: Route,
        status: Status.describe('The status of a create (200, 201, 202).'),
        body: TemplateSchema.nullable().describe(
          `The answer's body: a template (\`${v('view')}\`, or its own object), or null for an empty answer.`,
        ),
        headers: z
          .record(HeaderName, z.string())
          .default({})
          .describe(`Headers the answer carries (\`Location: ${v('path.read')}\`).`),
        required: z.array(FieldPath).default([]).describe('Body fields a create must carry (400 `invalid_request` otherwise).'),
        client_ref: FieldPath.optional().describe('The body field the client names its operation by (the judge links by it).'),
        kind: FieldPath.optional().describe("The body field whose value picks the job's behaviour (`by_kind`)."),
        sync_status: Status.default(200).describe('The status when a job finished inside the create (a `sync` behaviour).'),
        sync_body: TemplateSchema.nullable().optional().describe('The body then (default: `body`).'),
      })
      .describe('The create route and its answer.'),
    read: z.strictObject({ route: Route }).describe('The status route.'),
    idempotency: ProfileIdempotencySchema,
    find: ProfileFindSchema.optional(),
    cancel: ProfileCancelSchema.optional(),
    results: ProfileResultsSchema,
    retry_after: z
      .strictObject({
        reads: z.boolean().default(true).describe('Send `Retry-After` on reads of a job not final.'),
        min: z.number().int().min(0).default(1).describe('The least seconds sent.'),
        max: z.number().int().min(1).default(3600).describe('The most seconds sent.'),
      })
      .optional()
      .describe("`Retry-After` on status reads, within the API's bounds."),
    webhooks: ProfileWebhooksSchema.optional(),
    errors: ProfileErrorsSchema,
    sync: z
      .strictObject({
        prefer_wait: z.boolean().describe('Honour `Prefer: wait[=n]`.'),
        max_s: z.number().int().min(1).max(600).default(60).describe('The longest wait, in seconds.'),
      })
      .optional()
      .describe('`Prefer: wait[=n]` holds a create until the job is final or n seconds passed (Replicate).'),
  })
  .describe('A jobproof API profile (docs/profiles.md).');

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
