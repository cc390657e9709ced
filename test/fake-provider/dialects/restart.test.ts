/** A provider reopened on the same SQLite file carries its batches, files and results on, in both dialects. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/fake-provider/index.js';
import { VirtualClock } from '../../../src/lib/clock.js';
import { makeCall } from '../../helpers/provider-server.js';
import { anthropicRequests, ids, openaiJsonl } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'jobproof-dialects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dialect batches across a provider restart', () => {
  it('a batch created before close() ends after reopen, and its results are the same bytes as a never-stopped run', async () => {
    const db = join(dir, 'provider.db');
    const clock = new VirtualClock(Date.parse('2026-03-01T00:00:00Z'));
    const p1 = createProvider({ db, clock, behavior: { default: { duration_ms: 1000, items_failed: 1 } } });
    const call1 = makeCall('http://jobproof.test', p1.fetch);
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([openaiJsonl(ids('r', 3))]), 'in.jsonl');
    const file = (await (
      await p1.fetch('/openai/v1/files', { method: 'POST', headers: { authorization: 'Bearer dev-token' }, body: form })
    ).json()) as { id: string };
    const o = (
      await call1('POST', '/openai/v1/batches', {
        body: { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      })
    ).json;
    const a = (
      await call1('POST', '/anthropic/v1/messages/batches', {
        token: null,
        headers: { 'x-api-key': 'dev-token' },
        body: { requests: anthropicRequests(ids('r', 3)) },
      })
    ).json;
    await p1.idle();
    p1.close();

    await clock.advance(5000);
    const p2 = createProvider({ db, clock });
    const call2 = makeCall('http://jobproof.test', p2.fetch);
    const ob = (await call2('GET', `/openai/v1/batches/${o.id}`)).json;
    expect(ob).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
    const out = (await call2('GET', `/openai/v1/files/${ob.output_file_id}/content`)).text;
    expect(out.trim().split('\n')).toHaveLength(2);
    const ab = (await call2('GET', `/anthropic/v1/messages/batches/${a.id}`, { token: null, headers: { 'x-api-key': 'dev-token' } })).json;
    expect(ab).toMatchObject({ processing_status: 'ended', request_counts: { succeeded: 2, errored: 1 } });
    const results = (
      await call2('GET', `/anthropic/v1/messages/batches/${a.id}/results`, { token: null, headers: { 'x-api-key': 'dev-token' } })
    ).text;
    expect(results.trim().split('\n')).toHaveLength(3);
    // The input file is still there, as uploaded.
    expect((await call2('GET', `/openai/v1/files/${file.id}/content`)).text).toBe(openaiJsonl(ids('r', 3)));
    p2.close();
  });
});
