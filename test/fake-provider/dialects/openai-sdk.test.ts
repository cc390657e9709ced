/**
 * openai-node 6.49, unmodified, against the OpenAI dialect over real HTTP: upload → create → poll → cancel →
 * results, list paging with the SDK's own iterator, and what its default retries do to a create whose answer is lost.
 */
import { createHash } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../src/contract/index.js';
import { ids, openaiJsonl, parseJsonl, startDialectServer, type DialectServer } from './helpers.js';

let ps: DialectServer;
let client: OpenAI;
const DURATION = 10_000;

beforeAll(async () => {
  ps = await startDialectServer({ behavior: { default: { duration_ms: DURATION, commit_point: 0.9, cancel_ms: 200 } } });
  client = new OpenAI({ apiKey: 'dev-token', baseURL: `${ps.url}/openai/v1` });
});
afterAll(() => ps.stop());

async function upload(customIds: string[]) {
  return client.files.create({ file: await toFile(Buffer.from(openaiJsonl(customIds)), 'requests.jsonl'), purpose: 'batch' });
}

function requests(): RequestEntry[] {
  return ps.provider.journal.all().filter((e): e is RequestEntry => e.type === 'request');
}

describe('openai-node against the OpenAI dialect', () => {
  it('runs upload → create → poll → results with the documented fields', async () => {
    const customIds = ids('full', 5);
    const file = await upload(customIds);
    expect(file).toMatchObject({
      object: 'file',
      purpose: 'batch',
      status: 'processed',
      filename: 'requests.jsonl',
      bytes: Buffer.byteLength(openaiJsonl(customIds)),
    });
    expect(file.id).toMatch(/^file-/);
    expect(await client.files.retrieve(file.id)).toMatchObject({ id: file.id, purpose: 'batch' });
    expect(await (await client.files.content(file.id)).text()).toBe(openaiJsonl(customIds));

    const batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { op: 'op_1' },
    });
    expect(batch).toMatchObject({
      object: 'batch',
      status: 'validating',
      endpoint: '/v1/chat/completions',
      input_file_id: file.id,
      completion_window: '24h',
      metadata: { op: 'op_1' },
      request_counts: { total: 5, completed: 0, failed: 0 },
      output_file_id: null,
      error_file_id: null,
    });
    expect(batch.id).toMatch(/^batch_/);
    expect(Number.isInteger(batch.created_at)).toBe(true);
    expect(batch.expires_at).toBe(batch.created_at + 24 * 3600);

    await ps.advance(DURATION / 2);
    const running = await client.batches.retrieve(batch.id);
    expect(running.status).toBe('in_progress');
    expect(running.in_progress_at).toBeGreaterThanOrEqual(batch.created_at);
    expect(running.request_counts!.completed).toBeGreaterThan(0);
    expect(running.request_counts!.completed).toBeLessThan(5);

    await ps.advance(DURATION * 0.46);
    expect((await client.batches.retrieve(batch.id)).status).toBe('finalizing');
    await ps.advance(DURATION);
    const done = await client.batches.retrieve(batch.id);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 5, completed: 5, failed: 0 }, error_file_id: null });
    expect(done.completed_at).toBeGreaterThanOrEqual(done.finalizing_at!);
    const out = parseJsonl(await (await client.files.content(done.output_file_id!)).text());
    expect(out.map((l) => l.custom_id).sort()).toEqual([...customIds].sort());
    for (const l of out) {
      expect(l).toMatchObject({
        id: expect.stringMatching(/^batch_req_/),
        error: null,
        response: { status_code: 200, request_id: expect.any(String) },
      });
      expect(l.response.body).toMatchObject({
        object: 'chat.completion',
        model: 'gpt-4o-mini',
        choices: [{ message: { role: 'assistant' } }],
      });
    }
    expect(await client.files.retrieve(done.output_file_id!)).toMatchObject({ purpose: 'batch_output', bytes: expect.any(Number) });
    // The journal says which bytes were handed out.
    const served = requests().filter((e) => e.route === 'results' && e.file_id === done.output_file_id);
    expect(served.at(-1)).toMatchObject({
      effect: 'results_served',
      job_id: batch.id,
      served_sha256: createHash('sha256')
        .update(await (await client.files.content(done.output_file_id!)).text())
        .digest('hex'),
    });
    // Files can be deleted; then they are gone.
    expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
    await expect(client.files.retrieve(file.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);

    // The journal knows the dialect and the requests each create carried.
    const create = requests().find((e) => e.route === 'create' && e.job_id === batch.id)!;
    expect(create).toMatchObject({ dialect: 'openai', effect: 'created', custom_ids: customIds, file_id: file.id, status: 200 });
    expect(requests().find((e) => e.route === 'upload' && e.file_id === file.id)).toMatchObject({
      dialect: 'openai',
      custom_ids: customIds,
    });
  });

  it('cancels: cancelling, then cancelled with the partial results kept and the rest in the error file', async () => {
    const customIds = ids('cancel', 10);
    const file = await upload(customIds);
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await ps.advance(DURATION * 0.35);
    const cancelling = await client.batches.cancel(batch.id);
    expect(cancelling.status).toBe('cancelling');
    expect(cancelling.cancelling_at).toEqual(expect.any(Number));
    await ps.advance(200);
    const cancelled = await client.batches.retrieve(batch.id);
    expect(cancelled.status).toBe('cancelled');
    const { completed, failed, total } = cancelled.request_counts!;
    expect(total).toBe(10);
    expect(completed).toBe(3);
    expect(completed + failed).toBe(10);
    const out = parseJsonl(await (await client.files.content(cancelled.output_file_id!)).text());
    const err = parseJsonl(await (await client.files.content(cancelled.error_file_id!)).text());
    expect(out).toHaveLength(completed);
    expect(err).toHaveLength(failed);
    expect(err.every((l) => l.response === null && l.error.code === 'batch_cancelled')).toBe(true);
    expect([...out, ...err].map((l) => l.custom_id).sort()).toEqual([...customIds].sort());
    // A cancel of an ended batch is refused in OpenAI's error shape.
    const refused = await client.batches.cancel(batch.id, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.ConflictError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).message).toContain("Cannot cancel a batch with status 'cancelled'");
  });

  it('pages through every batch with the SDK iterator (limit 2, newest first)', async () => {
    for (let i = 0; i < 3; i++) {
      const f = await upload(ids(`page${i}`, 1));
      await client.batches.create({ input_file_id: f.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    }
    const all = ps.provider.core.jobs
      .all()
      .filter((j) => j.kind === 'openai.batch')
      .map((j) => j.job_id)
      .reverse();
    expect(all.length).toBeGreaterThanOrEqual(5);
    const mark = ps.provider.journal.lastSeq();
    const seen: string[] = [];
    for await (const b of client.batches.list({ limit: 2 })) seen.push(b.id);
    expect(seen).toEqual(all);
    const lists = ps.provider.journal.since(mark).filter((e): e is RequestEntry => e.type === 'request' && e.route === 'list');
    expect(lists).toHaveLength(Math.ceil(all.length / 2));
    const first = await client.batches.list({ limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
  });

  it('lists files with the SDK iterator: uploads newest first, and output files once their batch has ended', async () => {
    const fresh = new OpenAI({ apiKey: 'dev-token-2', baseURL: `${ps.url}/openai/v1` });
    const other = new OpenAI({ apiKey: 'other-tenant-token', baseURL: `${ps.url}/openai/v1` });
    await other.files.create({ file: await toFile(Buffer.from(openaiJsonl(['x-1'])), 'theirs.jsonl'), purpose: 'batch' });
    const mine = await client.files.list({ purpose: 'batch' });
    const before = mine.data.length;
    const up = [];
    for (let i = 0; i < 3; i++)
      up.push(
        await fresh.files.create({ file: await toFile(Buffer.from(openaiJsonl(ids(`lf${i}`, 1))), `op_${i}.jsonl`), purpose: 'batch' }),
      );
    // Same tenant (acme), another subject: files belong to the tenant, like batches.
    const seen: string[] = [];
    for await (const f of client.files.list({ purpose: 'batch', limit: 2 })) seen.push(f.id);
    expect(seen).toHaveLength(before + 3);
    expect(seen.slice(0, 3)).toEqual(up.map((f) => f.id).reverse());
    expect((await other.files.list()).data.map((f) => f.filename)).toEqual(['theirs.jsonl']);
    const b = await client.batches.create({ input_file_id: up[0]!.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const outputsBefore = (await client.files.list({ purpose: 'batch_output' })).data.map((f) => f.id);
    await ps.advance(DURATION * 2);
    const done = await client.batches.retrieve(b.id);
    const outputs = (await client.files.list({ purpose: 'batch_output' })).data;
    // Its output file did not exist while it ran; now it does (batches of earlier tests may have ended meanwhile too).
    expect(outputsBefore).not.toContain(done.output_file_id);
    expect(outputs.map((f) => f.id)).toEqual(expect.arrayContaining([done.output_file_id, ...outputsBefore]));
    expect(outputs.find((f) => f.id === done.output_file_id)).toBeDefined();
    const out = outputs.find((f) => f.id === done.output_file_id)!;
    expect(out).toMatchObject({ purpose: 'batch_output', filename: `${b.id}_output.jsonl` });
    expect(out.bytes).toBe(Buffer.byteLength(await (await client.files.content(out.id)).text()));
  });

  it('errors in OpenAI shape: bad key, unknown batch, bad body, unknown file', async () => {
    const bad = new OpenAI({ apiKey: 'nope', baseURL: `${ps.url}/openai/v1`, maxRetries: 0 });
    const e401 = await bad.batches.list().catch((e: unknown) => e);
    expect(e401).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(e401).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    const e404 = await client.batches.retrieve('batch_nope').catch((e: unknown) => e);
    expect(e404).toBeInstanceOf(OpenAI.NotFoundError);
    expect(e404).toMatchObject({ status: 404, type: 'invalid_request_error' });
    const e400 = await client.batches
      .create({ input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '48h' as '24h' })
      .catch((e: unknown) => e);
    expect(e400).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e400).toMatchObject({ status: 400, param: 'completion_window' });
    const noFile = await client.batches
      .create({ input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: '24h' })
      .catch((e: unknown) => e);
    expect(noFile).toMatchObject({ status: 400, param: 'input_file_id' });
  });

  it('with lose_response on the first create, the default client (maxRetries 2, no key) makes two batches', async () => {
    const file = await upload(ids('lost', 2));
    ps.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const mark = ps.provider.journal.lastSeq();
    try {
      const fresh = new OpenAI({ apiKey: 'dev-token', baseURL: `${ps.url}/openai/v1` });
      const batch = await fresh.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      const creates = ps.provider.journal.since(mark).filter((e): e is RequestEntry => e.type === 'request' && e.route === 'create');
      expect(creates).toHaveLength(2);
      expect(creates.map((e) => [e.effect, e.delivery, e.dialect])).toEqual([
        ['created', 'lost', 'openai'],
        ['created', 'delivered', 'openai'],
      ]);
      expect(creates[0]!.job_id).not.toBe(creates[1]!.job_id);
      expect(creates[1]!.job_id).toBe(batch.id);
      // Both are real batches of the same tenant, and both will run.
      const listed = (await fresh.batches.list({ limit: 5 })).data.map((b) => b.id);
      expect(listed).toEqual(expect.arrayContaining([creates[0]!.job_id, creates[1]!.job_id]));
      // No idempotency key was sent, and none would have helped: the dialect keeps none.
      expect(creates.every((e) => e.idempotency_key === null)).toBe(true);
    } finally {
      ps.provider.control.clearFaults();
    }
  });

  it('journals an Idempotency-Key and the worker headers, and ignores the key (a second create is a second batch)', async () => {
    const file = await upload(ids('key', 1));
    const headers = { 'Idempotency-Key': 'same-key', 'X-Worker-ID': 'worker-7', 'X-Trace-ID': 'tr_1', 'X-Lease-Token': '42' };
    const a = await client.batches.create(
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers },
    );
    const b = await client.batches.create(
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers },
    );
    expect(a.id).not.toBe(b.id);
    const entries = requests().filter((e) => e.route === 'create' && (e.job_id === a.id || e.job_id === b.id));
    expect(entries).toHaveLength(2);
    for (const e of entries)
      expect(e).toMatchObject({ idempotency_key: 'same-key', worker_id: 'worker-7', trace_id: 'tr_1', effect: 'created', lease_token: 42 });
  });
});
