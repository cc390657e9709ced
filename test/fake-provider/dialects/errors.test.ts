/** Bad input, aimed: each dialect answers with its own error shape and a 4xx that names the problem, never a 5xx. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCall, type Call } from '../../helpers/provider-server.js';
import { openaiJsonl, startDialectServer, type DialectServer } from './helpers.js';

let ps: DialectServer;
let anthropic: Call;
const A = { 'x-api-key': 'dev-token' };

beforeAll(async () => {
  ps = await startDialectServer();
  anthropic = makeCall(ps.url, globalThis.fetch, null);
});
afterAll(() => ps.stop());

const openaiShape = (param: string | null = null) => ({
  error: { message: expect.any(String), type: 'invalid_request_error', param, code: null },
});
const anthropicShape = (type = 'invalid_request_error') => ({
  type: 'error',
  error: { type, message: expect.any(String) },
  request_id: expect.stringMatching(/^req_/),
});

async function upload(body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(`${ps.url}/openai/v1/files`, {
    method: 'POST',
    headers: { authorization: 'Bearer dev-token', ...headers },
    body,
  });
  return { status: res.status, json: await res.json() };
}

describe('OpenAI dialect: bad input', () => {
  it.each([
    ['a JSON body instead of multipart', async () => upload('{"purpose":"batch"}', { 'content-type': 'application/json' }), null],
    [
      'no file part',
      async () =>
        upload(
          (() => {
            const f = new FormData();
            f.set('purpose', 'batch');
            return f;
          })(),
        ),
      'file',
    ],
    [
      'another purpose',
      async () =>
        upload(
          (() => {
            const f = new FormData();
            f.set('purpose', 'fine-tune');
            f.set('file', new Blob(['{}']), 'a.jsonl');
            return f;
          })(),
        ),
      'purpose',
    ],
    [
      'a file that is not JSONL',
      async () =>
        upload(
          (() => {
            const f = new FormData();
            f.set('purpose', 'batch');
            f.set('file', new Blob(['{"a":1}\nnot json\n']), 'a.jsonl');
            return f;
          })(),
        ),
      'file',
    ],
  ])('upload with %s: 400', async (_n, send, param) => {
    const res = await send();
    expect(res.status).toBe(400);
    expect(res.json).toEqual(openaiShape(param));
  });

  it.each([
    ['malformed JSON', '{"input_file_id":', null],
    ['an unknown field', { input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '24h', priority: 1 }, null],
    ['an unknown endpoint', { input_file_id: 'file-x', endpoint: '/v1/nope', completion_window: '24h' }, 'endpoint'],
    [
      '17 metadata pairs',
      {
        input_file_id: 'file-x',
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
        metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
      },
      'metadata',
    ],
    ['JSON nested 5,000 deep', `{"input_file_id":${'['.repeat(5000)}${']'.repeat(5000)}}`, null],
  ])('create with %s: 400', async (_n, body, param) => {
    const res = await ps.call('POST', '/openai/v1/batches', { body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(openaiShape(param));
  });

  it("list with a bad limit or an unknown cursor: 400; an unknown route: 404; another tenant's file: 404", async () => {
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?after=batch_nope']) {
      const res = await ps.call('GET', `/openai/v1/batches${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json.error.type).toBe('invalid_request_error');
    }
    const nowhere = await ps.call('PUT', '/openai/v1/batches');
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toEqual(openaiShape());
    const f = new FormData();
    f.set('purpose', 'batch');
    f.set('file', new Blob([openaiJsonl(['t-1'])]), 'a.jsonl');
    const mine = await upload(f);
    const theirs = await ps.call('GET', `/openai/v1/files/${mine.json.id}`, { token: 'other-tenant-token' });
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual(openaiShape('id'));
  });
});

describe('Anthropic dialect: bad input', () => {
  it.each([
    ['malformed JSON', '{"requests": ['],
    ['no requests', { requests: [] }],
    ['a custom_id with a space', { requests: [{ custom_id: 'a b', params: {} }] }],
    ['a custom_id of 65 characters', { requests: [{ custom_id: 'x'.repeat(65), params: {} }] }],
    ['params that are not an object', { requests: [{ custom_id: 'a', params: [1] }] }],
    ['an unknown field', { requests: [{ custom_id: 'a', params: {} }], priority: 1 }],
  ])('create with %s: 400 invalid_request_error', async (_n, body) => {
    const res = await anthropic('POST', '/anthropic/v1/messages/batches', { headers: { ...A, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(anthropicShape());
    expect(res.headers.get('request-id')).toBe(res.json.request_id);
  });

  it("bad list queries: 400; no key: 401; a bearer token works too (the SDK's authToken)", async () => {
    for (const q of ['?limit=0', '?limit=1001', '?after_id=a&before_id=b', '?after_id=msgbatch_nope']) {
      const res = await anthropic('GET', `/anthropic/v1/messages/batches${q}`, { headers: A });
      expect(res.status, q).toBe(400);
      expect(res.json).toEqual(anthropicShape());
    }
    const none = await anthropic('GET', '/anthropic/v1/messages/batches');
    expect(none.status).toBe(401);
    expect(none.json).toEqual(anthropicShape('authentication_error'));
    expect((await anthropic('GET', '/anthropic/v1/messages/batches', { headers: { authorization: 'Bearer dev-token' } })).status).toBe(200);
  });

  it('a body over the dialect limit (32 MiB): 413 request_too_large', async () => {
    const res = await anthropic('POST', '/anthropic/v1/messages/batches', {
      headers: { ...A, 'content-type': 'application/json' },
      body: Buffer.alloc(32 * 1024 * 1024 + 1, 0x20),
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(anthropicShape('request_too_large'));
  });
});
