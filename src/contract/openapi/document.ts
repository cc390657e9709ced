import { z } from 'zod';
import { ProblemSchema } from '../problems.js';
import { NAMED_SCHEMAS, ROUTES, type Answer, type RouteDoc } from './routes.js';

type Json = Record<string, unknown>;

const TAGS: Record<RouteDoc['api'], string> = { jobs: 'jobs', tasks: 'tasks', control: 'control', meta: 'meta' };

const HEADERS: Record<NonNullable<Answer['headers']>[number], Json> = {
  'Retry-After': { description: 'Seconds to wait before the next request (RFC 9110)', schema: { type: 'integer', minimum: 0 } },
  Location: { description: 'Where the new resource can be read', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same key',
    schema: { type: 'string', enum: ['true'] },
  },
  'Content-Digest': { description: 'sha-256 of the body (RFC 9530)', schema: { type: 'string' } },
};

/**
 * Convert one zod schema to JSON Schema 2020-12 (OpenAPI 3.1's dialect). Named schemas become `$defs`, which
 * `hoist` moves into `components.schemas`; request bodies are described as sent (defaults optional), answers as
 * received.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', defs: Json, registry: z.core.$ZodRegistry<{ id?: string }>): Json {
  const { $schema: _, $defs, ...rest } = z.toJSONSchema(schema, { io, metadata: registry, unrepresentable: 'any' }) as Json;
  Object.assign(defs, $defs ?? {});
  return rest;
}

function answer(a: Answer, defs: Json, registry: z.core.$ZodRegistry<{ id?: string }>): Json {
  const headers = a.headers ? Object.fromEntries(a.headers.map((h) => [h, HEADERS[h]])) : undefined;
  const schema = a.schema ? jsonSchema(a.schema, 'output', defs, registry) : {};
  return { description: a.description, ...(headers ? { headers } : {}), content: { [a.contentType ?? 'application/json']: { schema } } };
}

function operation(r: RouteDoc, defs: Json, registry: z.core.$ZodRegistry<{ id?: string }>): Json {
  const parameters: Json[] = [];
  for (const m of r.path.matchAll(/\{(\w+)\}/g)) parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
  if (r.query) {
    const q = jsonSchema(r.query, 'input', defs, registry) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(q.properties ?? {}))
      parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
  }
  if (r.idempotencyKey) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: r.idempotencyKey === 'required',
      description: '1–255 visible ASCII characters; the same key with the same body replays the first answer',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  if (r.api === 'jobs' || r.api === 'tasks') {
    parameters.push({
      name: 'X-Trace-ID',
      in: 'header',
      required: false,
      description: 'Journalled and echoed',
      schema: { type: 'string' },
    });
    parameters.push({ name: 'X-Worker-ID', in: 'header', required: false, description: 'Journalled', schema: { type: 'string' } });
  }
  const responses: Json = {};
  for (const [status, a] of Object.entries(r.answers)) responses[status] = answer(a, defs, registry);
  for (const [status, what] of Object.entries(r.problems ?? {}))
    responses[status] = { $ref: '#/components/responses/Problem', description: what };
  if (r.api !== 'meta') responses.default = { $ref: '#/components/responses/Problem' };
  return {
    operationId: r.operationId,
    summary: r.summary,
    tags: [TAGS[r.api]],
    ...(r.api === 'meta' ? { security: [] } : r.api === 'control' ? { security: [{ controlToken: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(r.body
      ? {
          requestBody: {
            required: r.body.required,
            content: { 'application/json': { schema: jsonSchema(r.body.schema, 'input', defs, registry) } },
          },
        }
      : {}),
    responses,
  };
}

/** The provider's OpenAPI 3.1 document, built from the contract's zod schemas (served at `GET /openapi.json`). */
export function openApiDocument(version = '0.1.0'): Json {
  const registry = z.registry<{ id?: string }>();
  for (const [id, schema] of NAMED_SCHEMAS) registry.add(schema, { id });
  const defs: Json = {};
  const paths: Record<string, Json> = {};
  for (const r of ROUTES) {
    paths[r.path] ??= {};
    paths[r.path]![r.method] = operation(r, defs, registry);
  }
  const problem = jsonSchema(ProblemSchema, 'output', defs, registry);
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'jobproof fake provider',
      version,
      description:
        'The native jobs API (docs/spec/provider-api.md), the tasks API (docs/spec/tasks-api.md) and the control API, generated from src/contract. Errors are RFC 9457 problems with a stable `code`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:4010' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'jobs', description: 'Long-running jobs: idempotent create, status, find, cancel, results' },
      { name: 'tasks', description: 'Agent tasks whose action waits for a human approval bound to one proposal version' },
      { name: 'control', description: 'For harnesses and people, never for clients under test; its own token; not journalled' },
      { name: 'meta', description: 'About the API itself' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A client token: its principal is a tenant and a subject' },
        controlToken: { type: 'http', scheme: 'bearer', description: 'The control token' },
      },
      schemas: { Problem: problem, ...defs },
      responses: {
        Problem: {
          description: 'An RFC 9457 problem',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
    },
  };
  // zod names shared schemas `#/$defs/…`; in OpenAPI they live under components.
  return JSON.parse(JSON.stringify(doc).replaceAll('"#/$defs/', '"#/components/schemas/'));
}
