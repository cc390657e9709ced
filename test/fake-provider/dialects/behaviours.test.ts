/**
 * Behaviours and faults as each dialect expresses them (docs/dialects.md has the table): failed items, expiry,
 * failure, one-shot results, lying progress, sync, scenarios and fault rules by route name. Plain fetch over loopback.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BehaviorInput, RequestEntry } from '../../../src/contract/index.js';
import { getScenario } from '../../../src/scenarios/index.js';
import { makeCall, type Call } from '../../helpers/provider-server.js';
import { anthropicRequests, ids, openaiJsonl, parseJsonl, startDialectServer, type DialectServer } from './helpers.js';

let ps: DialectServer;
let anthropic: Call;

beforeAll(async () => {
  ps = await startDialectServer();
  anthropic = makeCall(ps.url, globalThis.fetch, null);
});
afterAll(() => ps.stop());
beforeEach(() => {
  ps.provider.control.clearFaults();
});

const A_HEADERS = { 'x-api-key': 'dev-token', 'anthropic-version': '2023-06-01' };

function setBehavior(b: BehaviorInput): void {
  ps.provider.control.setBehavior({ default: { duration_ms: 1000, ...b } });
}

async function uploadFile(content: string): Promise<string> {
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob([content]), 'in.jsonl');
  const res = await fetch(`${ps.url}/openai/v1/files`, { method: 'POST', headers: { authorization: 'Bearer dev-token' }, body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

async function openaiBatch(customIds: string[], content = openaiJsonl(customIds)): Promise<any> {
  const file = await uploadFile(content);
  const res = await ps.call('POST', '/openai/v1/batches', {
    body: { input_file_id: file, endpoint: '/v1/chat/completions', completion_window: '24h' },
  });
  expect(res.status).toBe(200);
  return res.json;
}

async function anthropicBatch(customIds: string[]): Promise<any> {
  const res = await anthropic('POST', '/anthropic/v1/messages/batches', {
    headers: A_HEADERS,
    body: { requests: anthropicRequests(customIds) },
  });
  expect(res.status).toBe(200);
  return res.json;
}

const oread = async (id: string) => (await ps.call('GET', `/openai/v1/batches/${id}`)).json;
const aread = async (id: string) => (await anthropic('GET', `/anthropic/v1/messages/batches/${id}`, { headers: A_HEADERS })).json;
const ocontent = async (fileId: string) => ps.call('GET', `/openai/v1/files/${fileId}/content`);
const aresults = async (id: string) => anthropic('GET', `/anthropic/v1/messages/batches/${id}/results`, { headers: A_HEADERS });

describe('behaviours in the dialects', () => {
  it('items_failed: the last requests fail — OpenAI error-file lines, Anthropic errored results', async () => {
    setBehavior({ items_failed: 2 });
    const o = await openaiBatch(ids('if', 5));
    const a = await anthropicBatch(ids('if', 5));
    await ps.advance(1000);
    const ob = await oread(o.id);
    expect(ob).toMatchObject({ status: 'completed', request_counts: { total: 5, completed: 3, failed: 2 } });
    const errLines = parseJsonl((await ocontent(ob.error_file_id)).text);
    expect(errLines.map((l) => l.custom_id).sort()).toEqual(['if-4', 'if-5']);
    expect(errLines[0]).toMatchObject({ response: { status_code: 500, body: { error: { type: 'server_error' } } }, error: null });
    expect(parseJsonl((await ocontent(ob.output_file_id)).text)).toHaveLength(3);
    expect((await aread(a.id)).request_counts).toEqual({ processing: 0, succeeded: 3, errored: 2, canceled: 0, expired: 0 });
    const lines = parseJsonl((await aresults(a.id)).text);
    expect(
      lines
        .filter((l) => l.result.type === 'errored')
        .map((l) => l.custom_id)
        .sort(),
    ).toEqual(['if-4', 'if-5']);
  });

  it('expired: OpenAI `expired` with the unrun requests as batch_expired lines; Anthropic ended with expired results', async () => {
    setBehavior({ outcome: 'expired' });
    const o = await openaiBatch(ids('ex', 4));
    const a = await anthropicBatch(ids('ex', 4));
    await ps.advance(1000);
    const ob = await oread(o.id);
    expect(ob).toMatchObject({ status: 'expired', expired_at: expect.any(Number), request_counts: { total: 4, completed: 3, failed: 1 } });
    expect(parseJsonl((await ocontent(ob.error_file_id)).text)).toEqual([
      expect.objectContaining({ response: null, error: expect.objectContaining({ code: 'batch_expired' }) }),
    ]);
    const ab = await aread(a.id);
    expect(ab).toMatchObject({ processing_status: 'ended', request_counts: { succeeded: 3, expired: 1, processing: 0 } });
    expect(parseJsonl((await aresults(a.id)).text).filter((l) => l.result.type === 'expired')).toHaveLength(1);
  });

  it('failed: OpenAI fails while validating (errors, no files); Anthropic ends with every request errored', async () => {
    setBehavior({ outcome: 'failed' });
    const o = await openaiBatch(ids('fl', 3));
    const a = await anthropicBatch(ids('fl', 3));
    await ps.advance(500);
    expect((await oread(o.id)).status).toBe('validating');
    await ps.advance(500);
    const ob = await oread(o.id);
    expect(ob).toMatchObject({
      status: 'failed',
      in_progress_at: null,
      output_file_id: null,
      error_file_id: null,
      errors: { object: 'list', data: [{ code: 'batch_failed' }] },
    });
    expect((await aread(a.id)).request_counts).toMatchObject({ errored: 3, succeeded: 0 });
  });

  it('an OpenAI input file with bad lines fails the batch in validation, naming the lines', async () => {
    setBehavior({});
    const bad = openaiJsonl(['d-1', 'd-1']) + JSON.stringify({ custom_id: 'd-3', method: 'POST', url: '/v1/embeddings', body: {} }) + '\n';
    const o = await openaiBatch([], bad);
    expect(o.status).toBe('validating');
    expect(o.request_counts.total).toBe(0);
    await ps.advance(1000);
    const ob = await oread(o.id);
    expect(ob.status).toBe('failed');
    expect(ob.errors.data.map((e: { code: string; line: number }) => [e.code, e.line])).toEqual([
      ['duplicate_custom_id', 2],
      ['mismatched_endpoint', 3],
    ]);
  });

  it("one_shot_results: the second fetch finds the results gone (404 in each dialect's shape)", async () => {
    setBehavior({ one_shot_results: true, items_failed: 1 });
    const o = await openaiBatch(ids('os', 2));
    const a = await anthropicBatch(ids('os', 2));
    await ps.advance(1000);
    const { output_file_id: out, error_file_id: err } = await oread(o.id);
    expect((await ocontent(out)).status).toBe(200);
    // Each file once: the error file is still there after the output file was fetched.
    expect((await ocontent(err)).status).toBe(200);
    expect((await ocontent(err)).status).toBe(404);
    const again = await ocontent(out);
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('No such File object') } });
    expect((await aresults(a.id)).status).toBe(200);
    const aAgain = await aresults(a.id);
    expect(aAgain.status).toBe(404);
    expect(aAgain.json).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('progress_lies: counts say all done while the batch still runs; sync: the create answer shows it ended', async () => {
    setBehavior({ progress_lies: true, duration_ms: 10_000 });
    const o = await openaiBatch(ids('pl', 3));
    await ps.advance(500);
    expect(await oread(o.id)).toMatchObject({ status: 'in_progress', request_counts: { completed: 3 }, output_file_id: null });
    setBehavior({ mode: 'sync' });
    expect(await openaiBatch(ids('sy', 2))).toMatchObject({ status: 'completed', request_counts: { completed: 2 } });
    expect(await anthropicBatch(ids('sy', 2))).toMatchObject({
      processing_status: 'ended',
      results_url: expect.stringContaining('/results'),
    });
  });

  it('results are the same bytes on every fetch, and listed in no promised order', async () => {
    setBehavior({});
    const customIds = ids('ord', 12);
    const o = await openaiBatch(customIds);
    const a = await anthropicBatch(customIds);
    await ps.advance(1000);
    const out = (await oread(o.id)).output_file_id;
    const first = (await ocontent(out)).text;
    expect((await ocontent(out)).text).toBe(first);
    expect(parseJsonl(first).map((l) => l.custom_id)).not.toEqual(customIds);
    expect((await aresults(a.id)).text).toBe((await aresults(a.id)).text);
  });
});

describe("the control API's ground truth for the judge", () => {
  it("GET /_control/dialects/batches: each request's outcome by custom_id, agreeing with the results each dialect serves", async () => {
    setBehavior({ items_failed: 1, duration_ms: 10_000 });
    const customIds = ids('gt', 6);
    const o = await openaiBatch(customIds);
    const a = await anthropicBatch(customIds);
    await ps.advance(5_000);
    await ps.call('POST', `/openai/v1/batches/${o.id}/cancel`);
    await anthropic('POST', `/anthropic/v1/messages/batches/${a.id}/cancel`, { headers: A_HEADERS });
    await ps.advance(200);
    const truth = (await ps.control('GET', '/_control/dialects/batches')).json.data as Array<{
      batch_id: string;
      dialect: string;
      view: any;
      requests: Array<{ custom_id: string; outcome: string }>;
    }>;
    const ot = truth.find((b) => b.batch_id === o.id)!;
    const at = truth.find((b) => b.batch_id === a.id)!;
    expect(ot).toMatchObject({ dialect: 'openai', view: { status: 'cancelled' } });
    expect(at).toMatchObject({ dialect: 'anthropic', view: { processing_status: 'ended' } });
    expect(ot.requests.map((r) => r.custom_id)).toEqual(customIds);
    const byOutcome = (t: typeof ot, o: string) =>
      t.requests
        .filter((r) => r.outcome === o)
        .map((r) => r.custom_id)
        .sort();
    expect(byOutcome(ot, 'succeeded')).toEqual(['gt-1', 'gt-2', 'gt-3', 'gt-4', 'gt-5'].slice(0, byOutcome(ot, 'succeeded').length));
    expect(byOutcome(ot, 'canceled').length).toBeGreaterThan(0);
    const ob = await oread(o.id);
    expect(
      parseJsonl((await ocontent(ob.output_file_id)).text)
        .map((l) => l.custom_id)
        .sort(),
    ).toEqual(byOutcome(ot, 'succeeded'));
    const lines = parseJsonl((await aresults(a.id)).text);
    // Every request has exactly one result line, canceled ones too, so the loop below checks each of them.
    expect(lines.map((l) => l.custom_id).sort()).toEqual(at.requests.map((r) => r.custom_id).sort());
    for (const l of lines) expect(at.requests.find((r) => r.custom_id === l.custom_id)!.outcome).toBe(l.result.type);
  });
});

describe('faults and scenarios by route name in the dialects', () => {
  it('a catalog scenario (rate-limited: 429 on the first three status reads) applies to dialect reads, in their shapes', async () => {
    const s = getScenario('rate-limited');
    ps.provider.control.setBehavior(s.behavior);
    ps.provider.control.setFaults(s.faults);
    const o = await openaiBatch(ids('rl', 1));
    const a = await anthropicBatch(ids('rl', 1));
    const r1 = await ps.call('GET', `/openai/v1/batches/${o.id}`);
    expect(r1.status).toBe(429);
    expect(r1.headers.get('retry-after')).toBe('1');
    expect(r1.json).toEqual({ error: { message: expect.any(String), type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    const r2 = await anthropic('GET', `/anthropic/v1/messages/batches/${a.id}`, { headers: A_HEADERS });
    expect(r2.status).toBe(429);
    expect(r2.json).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' }, request_id: r2.headers.get('request-id') });
    const journal = ps.provider.journal.all().filter((e): e is RequestEntry => e.type === 'request' && e.status === 429);
    expect(journal.slice(-2).map((e) => [e.route, e.dialect, e.code, e.fault?.rule_id])).toEqual([
      ['status', 'openai', 'rate_limited', 'limit-polls'],
      ['status', 'anthropic', 'rate_limited', 'limit-polls'],
    ]);
  });

  it('rules name routes as dialects.md does (read, find, upload) or as provider-api.md does (status, list)', async () => {
    ps.provider.control.setFaults({
      seed: 3,
      rules: [
        { id: 'up', on: 'upload', nth: 1, fault: { type: 'fail_before_commit', status: 503, retry_after: 2 } },
        { id: 'rd', on: 'read', nth: 1, fault: { type: 'error_after_commit' } },
        { id: 'fd', on: 'find', nth: 1, fault: { type: 'fail_before_commit', status: 502 } },
      ],
    });
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([openaiJsonl(['u-1'])]), 'in.jsonl');
    const up = await fetch(`${ps.url}/openai/v1/files`, { method: 'POST', headers: { authorization: 'Bearer dev-token' }, body: form });
    expect(up.status).toBe(503);
    expect(up.headers.get('retry-after')).toBe('2');
    expect(await up.json()).toMatchObject({ error: { type: 'server_error' } });
    const o = await openaiBatch(['u-1']);
    const rd = await ps.call('GET', `/openai/v1/batches/${o.id}`);
    expect(rd.status).toBe(500);
    expect((await ps.call('GET', '/openai/v1/batches?limit=1')).status).toBe(502);
    expect(ps.provider.core.faults.describe().rules.map((r) => [r.id, r.on, r.hits])).toEqual([
      ['up', 'upload', 1],
      ['rd', 'status', 1],
      ['fd', 'list', 1],
    ]);
  });

  it('native requests are journalled without a dialect (native is the default); a 404 under a prefix has its dialect', async () => {
    const res = await ps.call('GET', '/v1/jobs');
    const find = (r: Response | { headers: Headers }) =>
      ps.provider.journal.all().find((x) => x.type === 'request' && x.request_id === r.headers.get('x-request-id')) as RequestEntry;
    expect(find(res)).toMatchObject({ route: 'list' });
    expect(find(res).dialect ?? 'native').toBe('native');
    expect(find(await ps.call('GET', '/openai/v1/nowhere'))).toMatchObject({ dialect: 'openai', status: 404 });
    expect(find(await anthropic('GET', '/anthropic/v1/nowhere', { headers: A_HEADERS }))).toMatchObject({
      dialect: 'anthropic',
      status: 404,
    });
  });
});
