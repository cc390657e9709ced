/**
 * Every answer of the OpenAI dialect, driven over real HTTP, against OpenAI's published OpenAPI document (pinned in
 * test/fixtures/vendor/openai-openapi): Batch and File objects in every state, both lists, deletes, every error, each
 * line of output and error files with the body of its endpoint's answer, and the batch webhook events.
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BehaviorInput } from '../../../src/contract/index.js';
import { openaiWebhookShaper } from '../../../src/fake-provider/dialects/openai/webhook-events.js';
import type { CallResult } from '../../helpers/provider-server.js';
import { BEYOND_EXAMPLES, check, EXAMPLE_NULLS, examples, OVERSTATED } from './openai-contract.js';
import { ids, parseJsonl, startDialectServer, type DialectServer } from './helpers.js';

let ps: DialectServer;
const checked = new Map<string, number>();
const DAY_S = 24 * 3600;

beforeAll(async () => {
  ps = await startDialectServer();
});
afterAll(() => ps.stop());
beforeEach(() => ps.provider.control.clearFaults());

/** Asserts `body` is valid for the document's schema, and counts it. */
function valid(schema: string, body: unknown): void {
  expect(check(schema, body), JSON.stringify(body).slice(0, 600)).toEqual([]);
  checked.set(schema, (checked.get(schema) ?? 0) + 1);
}

/** A JSON answer: 2xx against `schema`, any other status against `ErrorResponse`. */
function answer(res: CallResult, schema: string): any {
  valid(res.status < 300 ? schema : 'ErrorResponse', res.json);
  return res.json;
}

function setBehavior(b: BehaviorInput): void {
  ps.provider.control.setBehavior({ default: { duration_ms: 1000, ...b } });
}

const LINE_BODY: Record<string, (id: string) => Record<string, unknown>> = {
  '/v1/chat/completions': (id) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${id}` }] }),
  '/v1/embeddings': (id) => ({ model: 'text-embedding-3-small', input: `hi ${id}` }),
  '/v1/completions': (id) => ({ model: 'gpt-3.5-turbo-instruct', prompt: `hi ${id}` }),
  '/v1/responses': (id) => ({ model: 'gpt-4.1-mini', input: `hi ${id}` }),
  '/v1/moderations': (id) => ({ model: 'omni-moderation-latest', input: `hi ${id}` }),
  '/v1/images/generations': (id) => ({ model: 'gpt-image-1', prompt: `a cat ${id}` }),
  '/v1/images/edits': (id) => ({ model: 'gpt-image-1', prompt: `a hat ${id}`, image: 'file-abc' }),
  '/v1/videos': (id) => ({ model: 'sora-2', prompt: `a boat ${id}` }),
};

/** The document's schema for the body of each endpoint's answer. */
const BODY_SCHEMA: Record<string, string> = {
  '/v1/chat/completions': 'CreateChatCompletionResponse',
  '/v1/embeddings': 'CreateEmbeddingResponse',
  '/v1/completions': 'CreateCompletionResponse',
  '/v1/responses': 'Response',
  '/v1/moderations': 'CreateModerationResponse',
  '/v1/images/generations': 'ImagesResponse',
  '/v1/images/edits': 'ImagesResponse',
  '/v1/videos': 'VideoResource',
};

function jsonl(customIds: string[], url: string): string {
  return customIds.map((custom_id) => `${JSON.stringify({ custom_id, method: 'POST', url, body: LINE_BODY[url]!(custom_id) })}\n`).join('');
}

async function upload(content: string, extra: Record<string, string> = {}): Promise<any> {
  const form = new FormData();
  form.set('purpose', 'batch');
  for (const [k, v] of Object.entries(extra)) form.set(k, v);
  form.set('file', new Blob([content]), 'in.jsonl');
  const res = await fetch(`${ps.url}/openai/v1/files`, { method: 'POST', headers: { authorization: 'Bearer dev-token' }, body: form });
  const body = await res.json();
  valid(res.status < 300 ? 'OpenAIFile' : 'ErrorResponse', body);
  return body;
}

async function create(fileId: string, endpoint: string, extra: Record<string, unknown> = {}): Promise<any> {
  return answer(
    await ps.call('POST', '/openai/v1/batches', { body: { input_file_id: fileId, endpoint, completion_window: '24h', ...extra } }),
    'Batch',
  );
}

const read = async (id: string) => answer(await ps.call('GET', `/openai/v1/batches/${id}`), 'Batch');

/** Each line of an output or error file against `BatchRequestOutput`, its answer's body against the endpoint's schema. */
async function lines(fileId: string, endpoint: string): Promise<any[]> {
  const res = await ps.call('GET', `/openai/v1/files/${fileId}/content`);
  expect(res.status).toBe(200);
  answer(await ps.call('GET', `/openai/v1/files/${fileId}`), 'OpenAIFile');
  const out = parseJsonl(res.text);
  for (const l of out) {
    valid('BatchRequestOutput', l);
    if (l.response) valid(l.response.status_code === 200 ? BODY_SCHEMA[endpoint]! : 'ErrorResponse', l.response.body);
  }
  return out;
}

describe('the OpenAI dialect against openai-openapi', () => {
  it('empty lists', async () => {
    answer(await ps.call('GET', '/openai/v1/files'), 'ListFilesResponse');
    answer(await ps.call('GET', '/openai/v1/batches'), 'ListBatchesResponse');
  });

  it.each(Object.keys(LINE_BODY))('a batch for %s through every state, its output and error lines', async (endpoint) => {
    setBehavior({ items_failed: 1 });
    const file = await upload(jsonl(ids('e', 4), endpoint));
    const b = await create(file.id, endpoint);
    await ps.advance(500);
    expect((await read(b.id)).status).toBe('in_progress');
    await ps.advance(460);
    expect((await read(b.id)).status).toBe('finalizing');
    await ps.advance(100);
    const done = await read(b.id);
    expect(done.status).toBe('completed');
    expect(await lines(done.output_file_id, endpoint)).toHaveLength(3);
    expect(await lines(done.error_file_id, endpoint)).toHaveLength(1);
  });

  it('cancelled, expired and failed batches, and a file that fails validation', async () => {
    const endpoint = '/v1/chat/completions';
    setBehavior({ cancel_ms: 200 });
    const c = await create((await upload(jsonl(ids('c', 4), endpoint))).id, endpoint);
    await ps.advance(300);
    const cancelling = answer(await ps.call('POST', `/openai/v1/batches/${c.id}/cancel`), 'Batch');
    expect(cancelling.status).toBe('cancelling');
    await ps.advance(300);
    const cancelled = await read(c.id);
    expect(cancelled.status).toBe('cancelled');
    expect((await lines(cancelled.error_file_id, endpoint)).map((l) => l.error?.code)).toContain('batch_cancelled');
    answer(await ps.call('POST', `/openai/v1/batches/${c.id}/cancel`), 'Batch'); // 409 on a terminal batch

    setBehavior({ outcome: 'expired' });
    const e = await create((await upload(jsonl(ids('x', 4), endpoint))).id, endpoint);
    await ps.advance(1000);
    const expired = await read(e.id);
    expect(expired.status).toBe('expired');
    expect((await lines(expired.error_file_id, endpoint)).map((l) => l.error?.code)).toContain('batch_expired');

    setBehavior({ outcome: 'failed' });
    const f = await create((await upload(jsonl(ids('f', 2), endpoint))).id, endpoint);
    await ps.advance(1000);
    expect((await read(f.id)).status).toBe('failed');

    setBehavior({});
    const bad = await create((await upload(`${jsonl(['d'], endpoint)}${jsonl(['d'], '/v1/embeddings')}`)).id, endpoint);
    await ps.advance(1000);
    expect((await read(bad.id)).errors.data.length).toBeGreaterThan(0);
  });

  it('lists with pages, retrieve and delete of files', async () => {
    const page = answer(await ps.call('GET', '/openai/v1/batches?limit=2'), 'ListBatchesResponse');
    expect(page.has_more).toBe(true);
    answer(await ps.call('GET', `/openai/v1/batches?limit=2&after=${page.last_id}`), 'ListBatchesResponse');
    const files = answer(await ps.call('GET', '/openai/v1/files'), 'ListFilesResponse');
    expect(files.data.some((f: { purpose: string }) => f.purpose === 'batch_output')).toBe(true);
    answer(await ps.call('GET', '/openai/v1/files?limit=1&order=asc'), 'ListFilesResponse');
    const gone = files.data[0].id;
    answer(await ps.call('DELETE', `/openai/v1/files/${gone}`), 'DeleteFileResponse');
    answer(await ps.call('GET', `/openai/v1/files/${gone}`), 'OpenAIFile'); // 404
  });

  it('every error answer', async () => {
    const bad = [
      await ps.call('GET', '/openai/v1/batches/batch_nope'),
      await ps.call('POST', '/openai/v1/batches/batch_nope/cancel'),
      await ps.call('GET', '/openai/v1/files/file-nope'),
      await ps.call('GET', '/openai/v1/files/file-nope/content'),
      await ps.call('DELETE', '/openai/v1/files/file-nope'),
      await ps.call('POST', '/openai/v1/batches', {
        body: { input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' },
      }),
      await ps.call('POST', '/openai/v1/batches', { body: { endpoint: '/v1/nope', completion_window: '1h' } }),
      await ps.call('POST', '/openai/v1/batches', { body: '{not json', headers: { 'content-type': 'application/json' } }),
      await ps.call('GET', '/openai/v1/batches?limit=0'),
      await ps.call('GET', '/openai/v1/batches?after=batch_nope'),
      await ps.call('GET', '/openai/v1/files?after=file-nope'),
      await ps.call('GET', '/openai/v1/batches', { token: null }),
      await ps.call('POST', '/openai/v1/files', { body: 'x', headers: { 'content-type': 'text/plain' } }),
    ];
    const input = await upload(jsonl(['ac'], '/v1/chat/completions'));
    ps.provider.control.setFaults({
      rules: [
        { id: 'rl', on: 'status', nth: 1, fault: { type: 'rate_limit', retry_after: 1 } },
        { id: 'un', on: 'list', nth: 1, fault: { type: 'fail_before_commit', status: 503 } },
        { id: 'ie', on: 'upload', nth: 1, fault: { type: 'fail_before_commit', status: 500 } },
        { id: 'ac', on: 'create', nth: 1, fault: { type: 'error_after_commit' } },
      ],
    });
    bad.push(
      await ps.call('GET', '/openai/v1/batches/batch_nope'),
      await ps.call('GET', '/openai/v1/batches'),
      await ps.call('POST', '/openai/v1/batches', {
        body: { input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      }),
    );
    expect((await upload('{}\n')).error.type).toBe('server_error');
    for (const res of bad) {
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      answer(res, 'never');
    }
    expect(new Set(bad.map((r) => r.status))).toEqual(new Set([400, 401, 404, 429, 500, 503]));
  });

  it('the batch webhook events', () => {
    const events = { 'job.succeeded': 'Completed', 'job.failed': 'Failed', 'job.cancelled': 'Cancelled', 'job.expired': 'Expired' };
    for (const [jobEvent, name] of Object.entries(events) as Array<[Parameters<typeof openaiWebhookShaper>[1], string]>) {
      const shaped = openaiWebhookShaper('batch_1', jobEvent, 'evt_1', Date.now());
      valid(`WebhookBatch${name}`, JSON.parse(shaped!.payload));
    }
  });
});

describe('what the document says beyond shapes', () => {
  it('batch files expire after 30 days by default, or as expires_after says; output files as output_expires_after says', async () => {
    const client = new OpenAI({ apiKey: 'dev-token', baseURL: `${ps.url}/openai/v1` });
    const content = jsonl(ids('exp', 2), '/v1/chat/completions');
    const plain = await client.files.create({ file: await toFile(Buffer.from(content), 'a.jsonl'), purpose: 'batch' });
    valid('OpenAIFile', plain);
    expect(plain.expires_at).toBe(plain.created_at + 30 * DAY_S);
    const short = await client.files.create({
      file: await toFile(Buffer.from(content), 'b.jsonl'),
      purpose: 'batch',
      expires_after: { anchor: 'created_at', seconds: 3600 },
    });
    expect(short.expires_at).toBe(short.created_at + 3600);
    expect((await client.files.retrieve(short.id)).expires_at).toBe(short.expires_at);

    setBehavior({});
    const batch = await client.batches.create({
      input_file_id: short.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      output_expires_after: { anchor: 'created_at', seconds: 7200 },
    });
    await ps.advance(1000);
    const done = await client.batches.retrieve(batch.id);
    const out = await client.files.retrieve(done.output_file_id!);
    valid('OpenAIFile', out);
    expect(out.expires_at).toBe(out.created_at + 7200);
    // An expired file is gone, as a deleted one is.
    await ps.advance(3600 * 1000);
    expect((await ps.call('GET', `/openai/v1/files/${short.id}`)).status).toBe(404);
    expect((await ps.call('GET', `/openai/v1/files/${out.id}`)).status).toBe(200);
    await ps.advance(3600 * 1000);
    answer(await ps.call('GET', `/openai/v1/files/${out.id}/content`), 'never');
  });

  it('a Batch carries its model and usage: the sum of its output lines', async () => {
    setBehavior({ items_failed: 1 });
    const endpoint = '/v1/chat/completions';
    const b = await create((await upload(jsonl(ids('u', 5), endpoint))).id, endpoint);
    expect(b.model).toBe('gpt-4o-mini');
    expect(b.usage).toEqual({
      input_tokens: 0,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    });
    await ps.advance(1000);
    const done = await read(b.id);
    const out = await lines(done.output_file_id, endpoint);
    const sum = (k: string) => out.reduce((s, l) => s + l.response.body.usage[k], 0);
    expect(done.usage).toMatchObject({
      input_tokens: sum('prompt_tokens'),
      output_tokens: sum('completion_tokens'),
      total_tokens: sum('total_tokens'),
    });
  });

  it('each overstated field is null in the document’s own examples, or named with its reason', () => {
    for (const [schema, fields] of Object.entries(EXAMPLE_NULLS))
      for (const f of fields)
        expect(
          Object.values(examples).some((text) => new RegExp(`"${f}": null`).test(text)),
          `${schema}.${f}`,
        ).toBe(true);
    expect(Object.keys(OVERSTATED).sort()).toEqual([...Object.keys(EXAMPLE_NULLS), ...Object.keys(BEYOND_EXAMPLES)].sort());
  });

  it('the allow-list widens only what it names: a File with expires_at null, a Batch without an id, still fail', () => {
    const file = { id: 'file-a', object: 'file', bytes: 1, created_at: 1, filename: 'a', purpose: 'batch', status: 'processed' };
    expect(check('OpenAIFile', file)).toEqual([]);
    expect(check('OpenAIFile', { ...file, expires_at: null })).not.toEqual([]);
    expect(check('OpenAIFile', { ...file, status_details: null })).not.toEqual([]);
    expect(check('Batch', { object: 'batch', endpoint: '/v1/completions', input_file_id: 'f', completion_window: '24h' })).not.toEqual([]);
  });

  it('checked answers per schema', () => {
    console.info(`openai-openapi: ${[...checked].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    for (const s of [
      'Batch',
      'OpenAIFile',
      'ListBatchesResponse',
      'ListFilesResponse',
      'DeleteFileResponse',
      'ErrorResponse',
      'BatchRequestOutput',
    ])
      expect(checked.get(s), s).toBeGreaterThan(0);
  });
});
