/**
 * @google/genai 3.3.0, unmodified, against the built-in `gemini-batch` profile over real HTTP: batches.create →
 * get until succeeded → inlined responses, create → cancel, list with the SDK's pager, and that the SDK makes a
 * single attempt by default (no retry of a lost create, none of a 503).
 */
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../../src/contract/index.js';
import type { DialectServer } from '../../dialects/helpers.js';
import { startProfileServer } from '../helpers.js';
import { BELOW_NODE_22, NODE_22_REASON } from './node22.js';

const SRC = [{ contents: [{ parts: [{ text: 'hi' }], role: 'user' }] }, { contents: [{ parts: [{ text: 'there' }], role: 'user' }] }];

describe.skipIf(BELOW_NODE_22)(`@google/genai batches against gemini-batch (${NODE_22_REASON})`, () => {
  let s: DialectServer;
  let ai: GoogleGenAI;
  beforeAll(async () => {
    s = await startProfileServer(['gemini-batch'], { behavior: { default: { duration_ms: 2000, items: 2, cancel_ms: 100 } } });
    // The SDK's default apiVersion is v1; the Batch API's documented REST surface is v1beta.
    ai = new GoogleGenAI({ apiKey: 'dev-token', apiVersion: 'v1beta', httpOptions: { baseUrl: `${s.url}/profiles/gemini-batch` } });
  });
  afterAll(() => s?.stop());
  const creates = (since: number) =>
    s.provider.journal.since(since).filter((e): e is RequestEntry => e.type === 'request' && e.route === 'create');

  it('creates a batch, reads it until it succeeds, and gets its inlined responses', async () => {
    const mark = s.provider.journal.lastSeq();
    const b = await ai.batches.create({ model: 'gemini-2.5-flash', src: SRC, config: { displayName: 'genai-full' } });
    expect(b.name).toMatch(/^batches\//);
    expect(b.state).toBe('JOB_STATE_PENDING');
    expect(b.displayName).toBe('genai-full');
    expect(creates(mark)[0]!.client_ref).toBe('genai-full');
    await s.advance(1000);
    expect((await ai.batches.get({ name: b.name! })).state).toBe('JOB_STATE_RUNNING');
    await s.advance(1500);
    const done = await ai.batches.get({ name: b.name! });
    expect(done.state).toBe('JOB_STATE_SUCCEEDED');
    expect(done.endTime).toBeTruthy();
    expect(done.dest?.inlinedResponses).toHaveLength(2);
  });

  it('cancels a running batch: it ends JOB_STATE_CANCELLED', async () => {
    const b = await ai.batches.create({ model: 'gemini-2.5-flash', src: SRC, config: { displayName: 'genai-cancel' } });
    await s.advance(200);
    await ai.batches.cancel({ name: b.name! });
    await s.advance(500);
    expect((await ai.batches.get({ name: b.name! })).state).toBe('JOB_STATE_CANCELLED');
    // A second cancel of a finished batch is refused in google.rpc.Status form, as an ApiError.
    await expect(ai.batches.cancel({ name: b.name! })).rejects.toMatchObject({ status: 400 });
  });

  it('lists batches through the SDK pager across pages', async () => {
    const names: string[] = [];
    for await (const b of await ai.batches.list({ config: { pageSize: 1 } })) names.push(b.name!);
    expect(names.length).toBeGreaterThanOrEqual(2);
    expect(new Set(names).size).toBe(names.length);
  });

  it('makes one attempt by default: a lost create answer is an error, and nothing is resent', async () => {
    s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const mark = s.provider.journal.lastSeq();
    try {
      await expect(ai.batches.create({ model: 'gemini-2.5-flash', src: SRC, config: { displayName: 'genai-lost' } })).rejects.toThrow();
      expect(creates(mark).map((e) => [e.effect, e.delivery])).toEqual([['created', 'lost']]);
    } finally {
      s.provider.control.clearFaults();
    }
  });

  it('a 503 on create reaches the caller unretried by default', async () => {
    s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'fail_before_commit', status: 503 } }] });
    const mark = s.provider.journal.lastSeq();
    try {
      await expect(ai.batches.create({ model: 'gemini-2.5-flash', src: SRC })).rejects.toMatchObject({ status: 503 });
      expect(creates(mark)).toHaveLength(1);
    } finally {
      s.provider.control.clearFaults();
    }
  });
});
