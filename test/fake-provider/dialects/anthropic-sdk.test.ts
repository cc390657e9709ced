/**
 * @anthropic-ai/sdk 1.15, unmodified, against the Anthropic dialect over real HTTP: create → poll → cancel → results
 * (through `results_url`), list paging both ways, delete, errors, and its default retries on a lost create answer.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../src/contract/index.js';
import { anthropicRequests, ids, startDialectServer, type DialectServer } from './helpers.js';

let ps: DialectServer;
let client: Anthropic;
const DURATION = 10_000;

beforeAll(async () => {
  ps = await startDialectServer({ behavior: { default: { duration_ms: DURATION, commit_point: 0.9, cancel_ms: 200 } } });
  client = new Anthropic({ apiKey: 'dev-token', baseURL: `${ps.url}/anthropic` });
});
afterAll(() => ps.stop());

function requests(since = 0): RequestEntry[] {
  return ps.provider.journal.since(since).filter((e): e is RequestEntry => e.type === 'request');
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const sum = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);

describe('@anthropic-ai/sdk against the Anthropic dialect', () => {
  it('runs create → poll → results with the documented fields; results come through results_url', async () => {
    const customIds = ids('full', 4);
    const reqs = anthropicRequests(customIds);
    // One request Anthropic would refuse when it runs: the batch is accepted, that request ends errored.
    reqs[3] = { custom_id: customIds[3]!, params: { model: 'claude-sonnet-4-5', messages: [] } as never };
    const batch = await client.messages.batches.create({ requests: reqs });
    expect(batch).toMatchObject({
      type: 'message_batch',
      processing_status: 'in_progress',
      results_url: null,
      ended_at: null,
      archived_at: null,
      cancel_initiated_at: null,
      request_counts: { processing: 4, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    });
    expect(batch.id).toMatch(/^msgbatch_/);
    expect(Date.parse(batch.created_at)).not.toBeNaN();
    expect(Date.parse(batch.expires_at) - Date.parse(batch.created_at)).toBe(24 * 3600 * 1000);

    await ps.advance(DURATION / 2);
    const mid = await client.messages.batches.retrieve(batch.id);
    expect(mid.processing_status).toBe('in_progress');
    expect(sum(mid.request_counts as unknown as Record<string, number>)).toBe(4);
    expect(mid.request_counts.processing).toBeLessThan(4);
    await expect(client.messages.batches.results(batch.id)).rejects.toThrow(/No batch `results_url`/);

    await ps.advance(DURATION);
    const ended = await client.messages.batches.retrieve(batch.id);
    expect(ended).toMatchObject({
      processing_status: 'ended',
      request_counts: { processing: 0, succeeded: 3, errored: 1, canceled: 0, expired: 0 },
    });
    expect(ended.results_url).toBe(`${ps.url}/anthropic/v1/messages/batches/${batch.id}/results`);
    expect(Date.parse(ended.ended_at!)).toBeGreaterThanOrEqual(Date.parse(ended.created_at));

    const mark = ps.provider.journal.lastSeq();
    const results = await collect(await client.messages.batches.results(batch.id));
    expect(results.map((r) => r.custom_id).sort()).toEqual([...customIds].sort());
    const byId = Object.fromEntries(results.map((r) => [r.custom_id, r.result]));
    for (const id of customIds.slice(0, 3)) {
      expect(byId[id]).toMatchObject({
        type: 'succeeded',
        message: { type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text' }] },
      });
    }
    expect(byId[customIds[3]!]).toMatchObject({
      type: 'errored',
      error: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') } },
    });
    // results() read the batch, then fetched results_url exactly as given.
    expect(requests(mark).map((e) => [e.route, e.dialect, e.path])).toEqual([
      ['status', 'anthropic', `/anthropic/v1/messages/batches/${batch.id}`],
      ['results', 'anthropic', `/anthropic/v1/messages/batches/${batch.id}/results`],
    ]);
    expect(requests().find((e) => e.route === 'create' && e.job_id === batch.id)).toMatchObject({
      dialect: 'anthropic',
      custom_ids: customIds,
      effect: 'created',
    });
    expect(requests(mark)[1]!.effect).toBe('results_served');
    const raw = await (await fetch(ended.results_url!, { headers: { 'x-api-key': 'dev-token' } })).text();
    expect(requests().at(-1)!.served_sha256).toBe(createHash('sha256').update(raw).digest('hex'));
  });

  it('cancels: canceling, then ended with canceled results for what had not run; then it can be deleted', async () => {
    const customIds = ids('cancel', 10);
    const batch = await client.messages.batches.create({ requests: anthropicRequests(customIds) });
    await expect(client.messages.batches.delete(batch.id, {}, { maxRetries: 0 })).rejects.toMatchObject({ status: 400 });
    await ps.advance(DURATION * 0.55);
    const canceling = await client.messages.batches.cancel(batch.id);
    expect(canceling.processing_status).toBe('canceling');
    expect(canceling.cancel_initiated_at).not.toBeNull();
    await ps.advance(200);
    const ended = await client.messages.batches.retrieve(batch.id);
    expect(ended).toMatchObject({
      processing_status: 'ended',
      request_counts: { processing: 0, succeeded: 5, canceled: 5, errored: 0, expired: 0 },
    });
    const results = await collect(await client.messages.batches.results(batch.id));
    expect(results.filter((r) => r.result.type === 'canceled')).toHaveLength(5);
    expect(results.filter((r) => r.result.type === 'succeeded')).toHaveLength(5);
    const refused = await client.messages.batches.cancel(batch.id, {}, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(await client.messages.batches.delete(batch.id)).toEqual({ id: batch.id, type: 'message_batch_deleted' });
    await expect(client.messages.batches.retrieve(batch.id)).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('pages through every batch with the SDK iterator, after_id forwards and before_id back', async () => {
    for (let i = 0; i < 4; i++) await client.messages.batches.create({ requests: anthropicRequests(ids(`page${i}`, 1)) });
    const live = new Set(
      ps.provider.journal
        .all()
        .filter((e) => e.type === 'request' && e.route === 'delete' && e.status === 200)
        .map((e) => (e as RequestEntry).job_id),
    );
    const all = ps.provider.core.jobs
      .all()
      .filter((j) => j.kind === 'anthropic.message_batch' && !live.has(j.job_id))
      .map((j) => j.job_id)
      .reverse();
    expect(all.length).toBeGreaterThanOrEqual(5);
    const seen = (await collect(client.messages.batches.list({ limit: 2 }))).map((b) => b.id);
    expect(seen).toEqual(all);
    // Backwards from the oldest: before_id pages towards newer batches, each page newest first.
    const oldest = all.at(-1)!;
    const back = (await collect(client.messages.batches.list({ limit: 2, before_id: oldest }))).map((b) => b.id);
    expect(new Set(back)).toEqual(new Set(all.slice(0, -1)));
    const page = await client.messages.batches.list({ limit: 2, before_id: oldest });
    expect(page.data.map((b) => b.id)).toEqual(all.slice(-3, -1));
    expect(page).toMatchObject({ has_more: true, first_id: all.at(-3), last_id: all.at(-2) });
  });

  it('errors in Anthropic shape: bad key, unknown batch, bad body; request-id on every answer', async () => {
    const bad = new Anthropic({ apiKey: 'nope', baseURL: `${ps.url}/anthropic`, maxRetries: 0 });
    const e401 = await bad.messages.batches.list().catch((e: unknown) => e);
    expect(e401).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((e401 as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
    expect((e401 as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(/^req_/);
    const e404 = await client.messages.batches.retrieve('msgbatch_nope').catch((e: unknown) => e);
    expect(e404).toBeInstanceOf(Anthropic.NotFoundError);
    expect((e404 as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const dup = await client.messages.batches.create({ requests: anthropicRequests(['a', 'a']) }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(Anthropic.BadRequestError);
    expect((dup as InstanceType<typeof Anthropic.APIError>).message).toContain("duplicate custom_id 'a'");
  });

  it('with lose_response on the first create, the default client (maxRetries 2, no key) makes two batches', async () => {
    ps.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const mark = ps.provider.journal.lastSeq();
    try {
      const fresh = new Anthropic({ apiKey: 'dev-token', baseURL: `${ps.url}/anthropic` });
      const batch = await fresh.messages.batches.create({ requests: anthropicRequests(ids('lost', 2)) });
      const creates = requests(mark).filter((e) => e.route === 'create');
      expect(creates.map((e) => [e.effect, e.delivery, e.dialect])).toEqual([
        ['created', 'lost', 'anthropic'],
        ['created', 'delivered', 'anthropic'],
      ]);
      expect(creates[1]!.job_id).toBe(batch.id);
      expect(creates[0]!.job_id).not.toBe(batch.id);
      expect(creates[0]!.custom_ids).toEqual(creates[1]!.custom_ids);
    } finally {
      ps.provider.control.clearFaults();
    }
  });
});
