/**
 * The SDKs without a socket: given the provider's in-process `fetch` (as in-process certify runs use), they run the
 * same cycle, results_url included, and a lost create answer is the same connection error to them.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../src/contract/index.js';
import { createProvider, IN_PROCESS_BASE, type Provider } from '../../../src/fake-provider/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { anthropicRequests, ids, openaiJsonl } from './helpers.js';

let p: Provider;
let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
  p = createProvider({ clock, behavior: { default: { duration_ms: 1000 } } });
});
afterEach(() => p.close());

const creates = () => p.journal.all().filter((e): e is RequestEntry => e.type === 'request' && e.route === 'create');

describe('the SDKs over the in-process fetch', () => {
  it('openai-node: upload → create → completed → output; a lost create answer makes a second batch', async () => {
    p.control.setFaults({ rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response' } }] });
    const client = new OpenAI({ apiKey: 'dev-token', baseURL: `${IN_PROCESS_BASE}/openai/v1`, fetch: p.fetch });
    const file = await client.files.create({ file: await toFile(Buffer.from(openaiJsonl(ids('ip', 2))), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(creates().map((e) => e.delivery)).toEqual(['lost', 'delivered']);
    await clock.advance(1000);
    const done = await client.batches.retrieve(batch.id);
    expect(done.status).toBe('completed');
    expect((await (await client.files.content(done.output_file_id!)).text()).trim().split('\n')).toHaveLength(2);
  });

  it('@anthropic-ai/sdk: create → ended → results() through results_url', async () => {
    const client = new Anthropic({ apiKey: 'dev-token', baseURL: `${IN_PROCESS_BASE}/anthropic`, fetch: p.fetch });
    const batch = await client.messages.batches.create({ requests: anthropicRequests(ids('ip', 3)) });
    await clock.advance(1000);
    const ended = await client.messages.batches.retrieve(batch.id);
    expect(ended.results_url).toBe(`${IN_PROCESS_BASE}/anthropic/v1/messages/batches/${batch.id}/results`);
    const lines = [];
    for await (const r of await client.messages.batches.results(batch.id)) lines.push(r);
    expect(lines.map((l) => l.result.type)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('error_after_commit on the first create: both SDKs retry the 500 and make a second batch', async () => {
    p.control.setFaults({ rules: [{ on: 'create', nth: [1, 3], fault: { type: 'error_after_commit' } }] });
    const openai = new OpenAI({ apiKey: 'dev-token', baseURL: `${IN_PROCESS_BASE}/openai/v1`, fetch: p.fetch });
    const file = await openai.files.create({ file: await toFile(Buffer.from(openaiJsonl(ids('e', 1))), 'in.jsonl'), purpose: 'batch' });
    const o = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const anthropic = new Anthropic({ apiKey: 'dev-token', baseURL: `${IN_PROCESS_BASE}/anthropic`, fetch: p.fetch });
    const a = await anthropic.messages.batches.create({ requests: anthropicRequests(ids('e', 1)) });
    const seen = creates().map((e) => [e.dialect, e.status, e.effect]);
    expect(seen).toEqual([
      ['openai', 500, 'created'],
      ['openai', 200, 'created'],
      ['anthropic', 500, 'created'],
      ['anthropic', 200, 'created'],
    ]);
    expect([creates()[1]!.job_id, creates()[3]!.job_id]).toEqual([o.id, a.id]);
    expect(new Set(creates().map((e) => e.job_id)).size).toBe(4);
  });
});
