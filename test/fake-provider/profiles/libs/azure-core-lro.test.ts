/**
 * @azure/core-lro 3.4.2's createHttpPoller, unmodified, polling the built-in `azure-lro` profile through an
 * @azure-rest/core-client pipeline (core-rest-pipeline 1.25) over real HTTP: 202 + Operation-Location → poll →
 * Succeeded with the result, create → :cancel → Canceled, and what the pipeline's default retry policy does to a
 * lost create (it resends the POST: safe only with an Operation-Id).
 */
import { getClient, type Client, type HttpResponse } from '@azure-rest/core-client';
import { createHttpPoller, type OperationResponse } from '@azure/core-lro';
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../../../src/contract/index.js';
import type { DialectServer } from '../../dialects/helpers.js';
import { startProfileServer } from '../helpers.js';
import { BELOW_NODE_22, NODE_22_REASON } from './node22.js';

/** core-rest-pipeline's bearer policy refuses http://, so the fake's token goes in as a plain header policy. */
const bearer: PipelinePolicy = {
  name: 'fake-bearer',
  sendRequest: (req, next) => {
    req.headers.set('authorization', 'Bearer dev-token');
    return next(req);
  },
};

function toOperation(r: HttpResponse): OperationResponse {
  return {
    flatResponse: r.body,
    rawResponse: { statusCode: Number(r.status), headers: r.headers as Record<string, string>, request: r.request, body: r.body },
  };
}

describe.skipIf(BELOW_NODE_22)(`@azure/core-lro against azure-lro (${NODE_22_REASON})`, () => {
  let s: DialectServer;
  let client: Client;
  beforeAll(async () => {
    s = await startProfileServer(['azure-lro'], { behavior: { default: { duration_ms: 2000, items: 2, cancel_ms: 100 } } });
    client = getClient(`${s.url}/profiles/azure-lro`, {
      allowInsecureConnection: true,
      additionalPolicies: [{ policy: bearer, position: 'perCall' }],
      retryOptions: { retryDelayInMs: 10, maxRetryDelayInMs: 50 },
    });
  });
  afterAll(() => s?.stop());
  const creates = (since: number) =>
    s.provider.journal.since(since).filter((e): e is RequestEntry => e.type === 'request' && e.route === 'create');
  const lro = (tag: string, key?: string) => ({
    sendInitialRequest: async () =>
      toOperation(
        await client
          .path('/reports:generate')
          .post({ body: { clientReference: tag, account: 'acct_1' }, headers: key ? { 'Operation-Id': key } : {} }),
      ),
    sendPollRequest: async (path: string) => toOperation(await client.pathUnchecked(path).get()),
  });

  it('submits (202 + Operation-Location), polls to Succeeded and returns the final status body as the result', async () => {
    const poller = createHttpPoller(lro('az-full', 'key-az-full'), { intervalInMs: 10 });
    await poller.submitted();
    expect(poller.operationState?.status).toBe('running');
    const loc = (poller.operationState as { config?: { operationLocation?: string } }).config?.operationLocation;
    expect(loc).toMatch(new RegExp(`^${s.url}/profiles/azure-lro/operations/`));
    expect((await poller.poll()).status).toBe('running');
    await s.advance(2500);
    expect((await poller.poll()).status).toBe('succeeded');
    const result = (await poller.pollUntilDone()) as { status: string; result: { items: unknown[]; sha256: string } };
    expect(result.status).toBe('Succeeded');
    expect(result.result.items).toHaveLength(2);
    expect(result.result.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a cancel through the same client ends the poller canceled (poll and pollUntilDone reject)', async () => {
    const poller = createHttpPoller(lro('az-cancel', 'key-az-cancel'), { intervalInMs: 10 });
    await poller.submitted();
    const loc = (poller.operationState as unknown as { config: { operationLocation: string } }).config.operationLocation;
    const id = loc.split('/').pop()!;
    await s.advance(200);
    const c = await client.pathUnchecked(`/operations/${id}:cancel`).post();
    expect(c.status).toBe('202');
    await s.advance(500);
    // core-lro reports a Canceled status as an error from poll() and pollUntilDone() alike.
    await expect(poller.poll()).rejects.toThrow('Operation was canceled');
    expect(poller.operationState?.status).toBe('canceled');
    await expect(poller.pollUntilDone()).rejects.toThrow(/cancel/i);
    // A cancel of a finished operation is refused with the Azure error envelope.
    const again = await client.pathUnchecked(`/operations/${id}:cancel`).post();
    expect(again.status).toBe('409');
    expect(again.body).toMatchObject({ error: { code: 'OperationTerminal' } });
  });

  it('restores a poller from its serialized state and finishes it', async () => {
    const first = createHttpPoller(lro('az-restore', 'key-az-restore'), { intervalInMs: 10 });
    await first.submitted();
    const saved = await first.serialize();
    await s.advance(2500);
    const restored = createHttpPoller(lro('unused'), { restoreFrom: saved, intervalInMs: 10 });
    const result = (await restored.pollUntilDone()) as { status: string };
    expect(result.status).toBe('Succeeded');
  });

  it('the default retry policy resends a POST whose answer was lost: with an Operation-Id the resend is answered by the same operation', async () => {
    s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const mark = s.provider.journal.lastSeq();
    try {
      const poller = createHttpPoller(lro('az-lost', 'key-az-lost'), { intervalInMs: 10 });
      await poller.submitted();
      const cs = creates(mark);
      expect(cs).toHaveLength(2);
      expect(cs[0]!.delivery).toBe('lost');
      expect(cs[1]!.job_id).toBe(cs[0]!.job_id);
      expect(cs.every((e) => e.idempotency_key === 'key-az-lost')).toBe(true);
    } finally {
      s.provider.control.clearFaults();
    }
  });

  it('without an Operation-Id the same resend makes a second operation', async () => {
    s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
    const mark = s.provider.journal.lastSeq();
    try {
      const poller = createHttpPoller(lro('az-lost-nokey'), { intervalInMs: 10 });
      await poller.submitted();
      const cs = creates(mark);
      expect(cs.map((e) => e.effect)).toEqual(['created', 'created']);
      expect(cs[1]!.job_id).not.toBe(cs[0]!.job_id);
    } finally {
      s.provider.control.clearFaults();
    }
  });
});
