/**
 * Every answer of the Anthropic dialect, driven over real HTTP, checked against the official SDK's types
 * (anthropic-contract.ts): MessageBatch in each status, list pages, deletes, every result line kind, every error.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BehaviorInput } from '../../../src/contract/index.js';
import { makeCall, type Call, type CallResult } from '../../helpers/provider-server.js';
import { type AnswerType, check } from './anthropic-contract.js';
import { anthropicRequests, ids, parseJsonl, startDialectServer, type DialectServer } from './helpers.js';

let ps: DialectServer;
let call: Call;
const checked = new Map<string, number>();
const BASE = '/anthropic/v1/messages/batches';
const HEADERS = { 'x-api-key': 'dev-token', 'anthropic-version': '2023-06-01' };

/**
 * Where the SDK's types say less than Anthropic's API reference: its ErrorObject union has no `request_too_large`,
 * which the errors page gives for a 413. The check accepts that one error type, nothing else.
 */
const SDK_OMITS_ERROR_TYPES = new Set(['request_too_large']);

beforeAll(async () => {
  ps = await startDialectServer();
  call = makeCall(ps.url, globalThis.fetch, null);
});
afterAll(() => ps.stop());
beforeEach(() => ps.provider.control.clearFaults());

function valid(type: AnswerType, body: unknown): void {
  let b = body as { type?: string; error?: { type?: string } };
  if (type === 'ErrorResponse' && SDK_OMITS_ERROR_TYPES.has(b.error?.type ?? '')) b = { ...b, error: { ...b.error, type: 'api_error' } };
  expect(check(type, b), JSON.stringify(body).slice(0, 600)).toEqual([]);
  checked.set(type, (checked.get(type) ?? 0) + 1);
}

async function answer(
  method: string,
  path: string,
  type: AnswerType,
  body?: unknown,
  headers: Record<string, string> = HEADERS,
): Promise<CallResult> {
  const res = await call(method, `${BASE}${path}`, { headers, ...(body === undefined ? {} : { body }) });
  valid(res.status < 300 ? type : 'ErrorResponse', res.json);
  return res;
}

function setBehavior(b: BehaviorInput): void {
  ps.provider.control.setBehavior({ default: { duration_ms: 1000, cancel_ms: 200, ...b } });
}

async function create(n: number, prefix: string, invalid = false): Promise<any> {
  const requests: unknown[] = anthropicRequests(ids(prefix, n));
  if (invalid) requests[0] = { custom_id: `${prefix}-bad`, params: { model: 'claude-sonnet-4-5', messages: [] } };
  return (await answer('POST', '', 'MessageBatch', { requests })).json;
}

async function results(id: string): Promise<any[]> {
  const res = await call('GET', `${BASE}/${id}/results`, { headers: HEADERS });
  expect(res.status).toBe(200);
  const lines = parseJsonl(res.text);
  for (const l of lines) valid('MessageBatchIndividualResponse', l);
  return lines;
}

describe('the Anthropic dialect against @anthropic-ai/sdk types', () => {
  it('an empty list, then batches in every status with every kind of result line', async () => {
    await answer('GET', '', 'MessageBatchesPage');
    setBehavior({ items_failed: 1 });
    const ok = await create(4, 'ok', true);
    await ps.advance(500);
    await answer('GET', `/${ok.id}`, 'MessageBatch');
    await ps.advance(600);
    expect((await answer('GET', `/${ok.id}`, 'MessageBatch')).json.processing_status).toBe('ended');
    const kinds = (await results(ok.id)).map((l) => l.result.type);
    expect(new Set(kinds)).toEqual(new Set(['succeeded', 'errored']));

    const cancelled = await create(4, 'cn');
    await ps.advance(300);
    expect((await answer('POST', `/${cancelled.id}/cancel`, 'MessageBatch')).json.processing_status).toBe('canceling');
    await ps.advance(300);
    expect((await results(cancelled.id)).map((l) => l.result.type)).toContain('canceled');

    setBehavior({ outcome: 'expired' });
    const expired = await create(4, 'ex');
    await ps.advance(1000);
    expect((await results(expired.id)).map((l) => l.result.type)).toContain('expired');

    setBehavior({ outcome: 'failed' });
    const failed = await create(2, 'fl');
    await ps.advance(1000);
    expect((await answer('GET', `/${failed.id}`, 'MessageBatch')).json.request_counts.errored).toBe(2);

    const page = (await answer('GET', '?limit=2', 'MessageBatchesPage')).json;
    expect(page.has_more).toBe(true);
    await answer('GET', `?limit=2&after_id=${page.last_id}`, 'MessageBatchesPage');
    await answer('GET', `?limit=2&before_id=${page.first_id}`, 'MessageBatchesPage');
    await answer('DELETE', `/${ok.id}`, 'DeletedMessageBatch');
  });

  it('every error answer', async () => {
    setBehavior({});
    const running = await create(2, 'er');
    const statuses: number[] = [];
    const err = async (method: string, path: string, body?: unknown, headers: Record<string, string> = HEADERS) =>
      statuses.push((await answer(method, path, 'ErrorResponse', body, headers)).status);
    await err('GET', '/msgbatch_nope');
    await err('POST', '/msgbatch_nope/cancel');
    await err('DELETE', '/msgbatch_nope');
    await err('GET', '/msgbatch_nope/results');
    await err('GET', `/${running.id}/results`);
    await err('DELETE', `/${running.id}`);
    await err('POST', '', { requests: [] });
    await err('POST', '', { nope: 1 });
    await err('GET', '?limit=0');
    await err('GET', '?after_id=msgbatch_nope');
    await err('GET', '', undefined, { 'x-api-key': 'wrong', 'anthropic-version': '2023-06-01' });
    await err('POST', '', 'x'.repeat(33 * 1024 * 1024), { ...HEADERS, 'content-type': 'application/json' });
    ps.provider.control.setFaults({
      rules: [
        { id: 'rl', on: 'status', nth: 1, fault: { type: 'rate_limit', retry_after: 1 } },
        { id: 'un', on: 'list', nth: 1, fault: { type: 'fail_before_commit', status: 503 } },
        { id: 'ac', on: 'create', nth: 1, fault: { type: 'error_after_commit' } },
      ],
    });
    await err('GET', `/${running.id}`);
    await err('GET', '');
    await err('POST', '', { requests: anthropicRequests(['ac']) });
    expect(new Set(statuses)).toEqual(new Set([400, 401, 404, 413, 429, 500, 503]));
  });

  it('the check itself refuses a missing key, a key the type lacks and a wrong literal', () => {
    const line = { custom_id: 'a', result: { type: 'canceled' } };
    expect(check('MessageBatchIndividualResponse', line)).toEqual([]);
    expect(check('MessageBatchIndividualResponse', { result: line.result })).toEqual([
      'MessageBatchIndividualResponse.custom_id: missing (required by MessageBatchIndividualResponse)',
    ]);
    expect(check('MessageBatchIndividualResponse', { ...line, extra: 1 })).toHaveLength(1);
    expect(check('MessageBatchIndividualResponse', { ...line, result: { type: 'cancelled' } })).not.toEqual([]);
  });

  it('checked answers per type', () => {
    console.info(`anthropic-sdk types: ${[...checked].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    for (const t of ['MessageBatch', 'MessageBatchesPage', 'DeletedMessageBatch', 'MessageBatchIndividualResponse', 'ErrorResponse'])
      expect(checked.get(t), t).toBeGreaterThan(0);
  });
});
