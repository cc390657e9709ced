import { z } from 'zod';

/** The Message Batches API's own limit on requests per batch. */
export const MAX_REQUESTS = 100_000;

export const CreateBatchSchema = z
  .object({
    requests: z
      .array(
        z
          .object({
            custom_id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'custom_id must be 1-64 characters of [a-zA-Z0-9_-]'),
            params: z.record(z.string(), z.unknown()),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_REQUESTS),
  })
  .strict()
  .superRefine((b, ctx) => {
    const seen = new Set<string>();
    b.requests.forEach((r, i) => {
      if (seen.has(r.custom_id))
        ctx.addIssue({ code: 'custom', path: ['requests', i, 'custom_id'], message: `duplicate custom_id '${r.custom_id}'` });
      seen.add(r.custom_id);
    });
  });
export type CreateBatchBody = z.infer<typeof CreateBatchSchema>;

export const ListQuerySchema = z
  .object({
    before_id: z.string().min(1).max(200).optional(),
    after_id: z.string().min(1).max(200).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(20),
  })
  .refine((q) => q.before_id === undefined || q.after_id === undefined, {
    message: 'give before_id or after_id, not both',
    path: ['before_id'],
  });

/**
 * Anthropic checks each request's `params` only when it runs: a request without `model`, a positive integer
 * `max_tokens` and a `messages` array ends `errored` with an invalid_request_error, the batch itself is accepted.
 */
export function paramsProblem(params: Record<string, unknown>): string | null {
  if (typeof params.model !== 'string' || params.model === '') return 'model: Field required';
  if (typeof params.max_tokens !== 'number' || !Number.isInteger(params.max_tokens) || params.max_tokens < 1)
    return 'max_tokens: Field required';
  if (!Array.isArray(params.messages)) return 'messages: Field required';
  return null;
}
