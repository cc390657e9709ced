import { z } from 'zod';
import { JOB_STATES } from './jobs.js';

/**
 * The building blocks of a profile (profiles.ts): the field types, a route, and the parts a profile names who it
 * serves, how it names a job, where its state is, how it refuses and how a retried create is made safe.
 */
export const EngineState = z.enum(JOB_STATES);
/** Where a refusal's status or code may be changed: jobproof's stable error codes. */
export const ErrorCode = z.string().regex(/^[a-z_]+$/, 'a jobproof error code such as job_not_found');
export const FieldPath = z.string().regex(/^[A-Za-z_$@][\w$@-]*(\.[A-Za-z_$@][\w$@-]*)*$/, 'a dotted field path such as metadata.state');
export const Method = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
export const RoutePath = z.string().regex(/^\/[^\s?#]*$/, 'a path template starting with / (no query), e.g. /v1/reports/{id}');
export const HeaderName = z.string().regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name');
/** A JSON template (profiles.ts says how `${name}` is filled in). */
export const TemplateSchema = z.json();
export const Status = z.number().int().min(200).max(599);
/** `${name}` in a description. */
export const v = (name: string): string => `\${${name}}`;

export const Route = z
  .strictObject({
    method: Method.describe('The HTTP method.'),
    path: RoutePath.describe('The path below the prefix, `{id}` where the job id goes (`/v1/reports/{id}`, `/v1/{id}:cancel`).'),
    operation: z
      .strictObject({
        header: HeaderName.describe('The header naming the operation.'),
        value: z.string().min(1).describe('Its value for this route.'),
      })
      .optional()
      .describe('An operation chosen by a header instead of the path (AWS `X-Amz-Target: Transcribe.GetTranscriptionJob`).'),
    id_field: FieldPath.optional().describe(
      'Where the job id is when the path has no `{id}`: a field of the JSON request body (AWS `TranscriptionJobName`).',
    ),
  })
  .describe('A route: method and path template.');

export const ProfileAuthSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('bearer') }).describe('`Authorization: Bearer <token>`.'),
    z
      .strictObject({
        type: z.literal('header'),
        name: HeaderName.describe('The header carrying the key (`x-api-key`, `api-key`).'),
        scheme: z.string().optional().describe('A scheme before the key, when the API uses one (`Token` in `Token <key>`).'),
      })
      .describe('An API-key header.'),
    z
      .strictObject({
        type: z.literal('none'),
        token: z.string().default('dev-token').describe("Every request acts as this token's principal."),
      })
      .describe('No credentials.'),
  ])
  .describe('How a request proves who it is; tokens map to the same tenants as everywhere in jobproof.');

export const ProfileIdSchema = z
  .discriminatedUnion('source', [
    z
      .strictObject({
        source: z.literal('generated'),
        prefix: z
          .string()
          .regex(/^[A-Za-z0-9_-]{0,20}$/)
          .default('job_')
          .describe('The prefix of every generated id.'),
      })
      .describe('The provider names the job: a fresh opaque id.'),
    z
      .strictObject({
        source: z.literal('body'),
        field: FieldPath.describe('The create body field holding the name (`TranscriptionJobName`).'),
        pattern: z.string().default('^[A-Za-z0-9._-]{1,200}$').describe('A regular expression a name must match (400 otherwise).'),
        taken: z
          .strictObject({
            status: Status.default(409).describe('Its status.'),
            code: ErrorCode.default('job_exists').describe('Its jobproof error code (see `errors.codes`).'),
          })
          .prefault({})
          .describe('The refusal of a create naming a job that exists.'),
      })
      .describe('The client names the job in the create body (a natural key); a second create with a taken name is refused.'),
  ])
  .describe('Who names a job, and how.');

export const ProfileStateSchema = z
  .strictObject({
    values: z
      .record(z.string(), EngineState)
      .describe("Every value the API documents, onto the engine's states (several values may name one state)."),
    serve_as: z
      .partialRecord(EngineState, z.string())
      .default({})
      .describe('The value served for an engine state no value names (an API without `cancelling` shows it as `running`).'),
    derived: z
      .array(
        z.strictObject({
          when: z.record(FieldPath, z.json()).describe('View field → the value it must have (`"$present"`, `"$absent"`: any / none).'),
          state: EngineState.describe('The engine state when every field matches.'),
        }),
      )
      .optional()
      .describe('When the API has no state field (AIP-151): rules read top to bottom, the first that matches gives the state.'),
  })
  .describe("Where the job's state is and what its values mean.");

export const ProfileErrorsSchema = z
  .strictObject({
    content_type: z.string().default('application/json').describe("The refusal's content type (`application/problem+json`)."),
    body: TemplateSchema.describe(
      `The envelope, a template over \`${v('status')}\`, \`${v('code')}\` (after \`codes\`), \`${v('message')}\`, \`${v('title')}\`, \`${v('request_id')}\`, \`${v('type')}\`.`,
    ),
    codes: z
      .record(ErrorCode, z.union([z.string(), z.number()]))
      .default({})
      .describe("jobproof code → the API's code (`job_not_found` → `NOT_FOUND`); unlisted codes pass through."),
    statuses: z.record(ErrorCode, Status).default({}).describe("jobproof code → the API's status for that refusal, where it differs."),
    extras: z
      .enum(['merge', 'drop'])
      .default('drop')
      .describe("Where a refusal's extras (`errors`, `job`) go: merged at the envelope's root, or dropped."),
  })
  .describe("The API's own error envelope and statuses, for every refusal.");

export const ProfileIdempotencySchema = z
  .discriminatedUnion('source', [
    z.strictObject({ source: z.literal('none') }).describe('No key: a retried create makes a second job.'),
    z
      .strictObject({
        source: z.enum(['header', 'body']).describe('Where the key travels.'),
        name: z
          .string()
          .min(1)
          .describe('The header (`Idempotency-Key`, `Operation-Id`, `Repeatability-Request-ID`) or body field (`request_id`).'),
        required: z.boolean().default(false).describe('A create without a key is refused (400).'),
        reuse: z
          .strictObject({
            status: Status.default(422).describe('Its status.'),
            code: ErrorCode.default('idempotency_key_reused').describe('Its jobproof error code.'),
          })
          .prefault({})
          .describe('The answer to a reused key with another body.'),
        replay_header: HeaderName.optional().describe(
          'A header a replayed answer carries (`Idempotent-Replayed: true`), if the API sends one.',
        ),
        window_s: z.number().int().min(1).default(86400).describe('How long a key is remembered, in seconds.'),
      })
      .describe('A key in a header or a body field: a retried create with the same key and body gets the first answer again.'),
    z
      .strictObject({ source: z.literal('client_id') })
      .describe('The client-chosen job id is the key (`id.source: body`): a retry meets `taken`.'),
  ])
  .describe('How a retried create is made safe, or `none`.');
