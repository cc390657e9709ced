import { lineDigest } from '../lines.js';
import type { BatchRequest } from '../store.js';

/**
 * What each batch endpoint answers a request with: a plausible body of that endpoint's response (the schema OpenAI's
 * OpenAPI document gives it), a pure function of the input line and the batch's end time. Its token counts are what
 * the Batch's `usage` sums.
 */
export interface LineTokens {
  input: number;
  output: number;
}

function count(d: string, at: number): number {
  return 5 + (Number.parseInt(d.slice(at, at + 2), 16) % 40);
}

/** Embeddings and moderations produce no output tokens. */
export function lineTokens(endpoint: string, r: BatchRequest, d = lineDigest(r)): LineTokens {
  const input = count(d, 0);
  return { input, output: endpoint === '/v1/embeddings' || endpoint === '/v1/moderations' ? 0 : count(d, 2) };
}

export function modelOf(r: BatchRequest | undefined, fallback: string): string {
  return typeof r?.body.model === 'string' ? r.body.model : fallback;
}

const MODERATION_CATEGORIES = [
  'hate',
  'hate/threatening',
  'harassment',
  'harassment/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];

function moderation(id: string, model: string): Record<string, unknown> {
  const each = <T>(v: T) => Object.fromEntries(MODERATION_CATEGORIES.map((c) => [c, v]));
  return {
    id: `modr-${id}`,
    model,
    results: [{ flagged: false, categories: each(false), category_scores: each(0.0001), category_applied_input_types: each(['text']) }],
  };
}

export function responseBody(endpoint: string, r: BatchRequest, created: number): Record<string, unknown> {
  const d = lineDigest(r);
  const text = `jobproof answer ${d.slice(0, 16)}`;
  const { input, output } = lineTokens(endpoint, r, d);
  const id = d.slice(0, 24);
  switch (endpoint) {
    case '/v1/chat/completions':
      return {
        id: `chatcmpl-${id}`,
        object: 'chat.completion',
        created,
        model: modelOf(r, 'gpt-4o-mini'),
        choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
    case '/v1/embeddings':
      return {
        object: 'list',
        model: modelOf(r, 'text-embedding-3-small'),
        data: [{ object: 'embedding', index: 0, embedding: [0, 2, 4, 6].map((i) => Number.parseInt(d.slice(i, i + 2), 16) / 255) }],
        usage: { prompt_tokens: input, total_tokens: input },
      };
    case '/v1/responses':
      return {
        id: `resp_${id}`,
        object: 'response',
        created_at: created,
        status: 'completed',
        error: null,
        incomplete_details: null,
        instructions: null,
        model: modelOf(r, 'gpt-4.1-mini'),
        output: [
          {
            type: 'message',
            id: `msg_${d.slice(24, 48)}`,
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
          },
        ],
        parallel_tool_calls: true,
        tool_choice: 'auto',
        tools: [],
        temperature: 1,
        top_p: 1,
        metadata: {},
        usage: {
          input_tokens: input,
          input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
          output_tokens: output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: input + output,
        },
      };
    case '/v1/moderations':
      return moderation(id, modelOf(r, 'omni-moderation-latest'));
    case '/v1/images/generations':
    case '/v1/images/edits':
      return {
        created,
        data: [{ b64_json: Buffer.from(text).toString('base64') }],
        usage: {
          input_tokens: input,
          input_tokens_details: { text_tokens: input, image_tokens: 0 },
          output_tokens: output,
          total_tokens: input + output,
        },
      };
    case '/v1/videos':
      return {
        id: `video_${id}`,
        object: 'video',
        model: modelOf(r, 'sora-2'),
        status: 'queued',
        progress: 0,
        created_at: created,
        completed_at: null,
        expires_at: null,
        prompt: typeof r.body.prompt === 'string' ? r.body.prompt : null,
        size: '720x1280',
        seconds: '4',
        remixed_from_video_id: null,
        error: null,
      };
    default:
      return {
        id: `cmpl-${id}`,
        object: 'text_completion',
        created,
        model: modelOf(r, 'gpt-3.5-turbo-instruct'),
        choices: [{ index: 0, text, finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
  }
}
