import { z } from 'zod';
import type { BatchLineError, BatchRequest } from '../store.js';

/** The endpoints a batch may target (openai-node 6.49 `BatchCreateParams['endpoint']`). */
export const OPENAI_ENDPOINTS = [
  '/v1/responses',
  '/v1/chat/completions',
  '/v1/embeddings',
  '/v1/completions',
  '/v1/moderations',
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/videos',
] as const;

/** The Batch API's own limit on requests per batch. */
export const MAX_REQUESTS = 50_000;

export const CreateBatchSchema = z
  .object({
    input_file_id: z.string().min(1).max(200),
    endpoint: z.enum(OPENAI_ENDPOINTS),
    completion_window: z.literal('24h'),
    metadata: z
      .record(z.string().min(1).max(64), z.string().max(512))
      .refine((m) => Object.keys(m).length <= 16, 'metadata takes at most 16 pairs')
      .nullable()
      .optional(),
    output_expires_after: z
      .object({ anchor: z.literal('created_at'), seconds: z.number().int().min(3600).max(2_592_000) })
      .strict()
      .optional(),
  })
  .strict();
export type CreateBatchBody = z.infer<typeof CreateBatchSchema>;

export const ListQuerySchema = z.object({
  after: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** A JSONL file whose every non-blank line is a JSON object, or the first line that is not. */
export function parseJsonl(
  content: string,
): { ok: true; lines: Array<{ line: number; value: Record<string, unknown> }> } | { ok: false; line: number } {
  const lines: Array<{ line: number; value: Record<string, unknown> }> = [];
  const raw = content.split('\n');
  for (let i = 0; i < raw.length; i++) {
    const text = raw[i]!.trim();
    if (text === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, line: i + 1 };
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, line: i + 1 };
    lines.push({ line: i + 1, value: value as Record<string, unknown> });
  }
  return { ok: true, lines };
}

/**
 * What the Batch API checks while a batch is `validating`: every line `{custom_id, method: "POST", url, body}`,
 * `url` equal to the batch's endpoint, `custom_id`s unique. Problems fail the batch (they are not a 400 on create).
 */
export function validateLines(content: string, endpoint: string): { requests: BatchRequest[]; errors: BatchLineError[] } {
  const parsed = parseJsonl(content);
  if (!parsed.ok)
    return {
      requests: [],
      errors: [{ code: 'invalid_json_line', message: `Line ${parsed.line} is not a JSON object.`, line: parsed.line, param: null }],
    };
  const errors: BatchLineError[] = [];
  const requests: BatchRequest[] = [];
  const seen = new Set<string>();
  if (parsed.lines.length === 0) errors.push({ code: 'empty_file', message: 'The input file has no requests.', line: null, param: null });
  if (parsed.lines.length > MAX_REQUESTS)
    errors.push({ code: 'too_many_requests', message: `A batch takes at most ${MAX_REQUESTS} requests.`, line: null, param: null });
  for (const { line, value } of parsed.lines) {
    const e = (code: string, message: string, param: string) => errors.push({ code, message, line, param });
    const { custom_id, method, url, body } = value;
    if (typeof custom_id !== 'string' || custom_id === '')
      e('missing_required_parameter', 'custom_id must be a non-empty string.', 'custom_id');
    else if (seen.has(custom_id)) e('duplicate_custom_id', `The custom_id '${custom_id}' appears more than once.`, 'custom_id');
    if (method !== 'POST') e('invalid_method', "method must be 'POST'.", 'method');
    if (url !== endpoint) e('mismatched_endpoint', `url must be the batch's endpoint ${endpoint}.`, 'url');
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      e('missing_required_parameter', 'body must be a JSON object.', 'body');
    if (typeof custom_id === 'string') seen.add(custom_id);
    if (errors.length === 0)
      requests.push({ custom_id: custom_id as string, method: 'POST', url: url as string, body: body as Record<string, unknown> });
  }
  // The real API lists a handful of problems, not every line of a broken file.
  return { requests: errors.length ? [] : requests, errors: errors.slice(0, 10) };
}

/** The `custom_id`s of a file's lines, as far as they can be read (journalled on upload, for the judge). */
export function customIdsOf(lines: Array<{ value: Record<string, unknown> }>): string[] {
  return lines.map((l) => l.value.custom_id).filter((x): x is string => typeof x === 'string');
}
