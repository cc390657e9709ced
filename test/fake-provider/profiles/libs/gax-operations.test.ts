/**
 * google-gax 6.17.0's operations client and LROperation, unmodified, over its REST fallback (plain http to
 * loopback) against the built-in `google-lro` profile: the create is the AIP-151 method's POST (a generated client
 * would send it through its own stub), then getOperation / operation().promise() to the result, cancel() to a
 * CANCELLED error, and listOperations with the AIP-151 filter that finds a lost create by its request_id.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { OAuth2Client } from 'google-auth-library';
import { createDefaultBackoffSettings, fallback, LongrunningDescriptor, operation } from 'google-gax';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DialectServer } from '../../dialects/helpers.js';
import { startProfileServer } from '../helpers.js';
import { BELOW_NODE_22, NODE_22_REASON } from './node22.js';

const PREFIX = '/profiles/google-lro';

/** gax's own google.longrunning protos plus the two message types the profile's Any values name. */
function protosJson(): any {
  const require = createRequire(import.meta.url);
  const path = require.resolve('google-gax').replace(/build\/src\/index\.js$/, 'build/protos/operations.json');
  const json = JSON.parse(readFileSync(path, 'utf8'));
  json.nested.jobproof = {
    nested: {
      v1: {
        nested: {
          Output: { fields: { job_id: { type: 'string', id: 1 }, index: { type: 'int32', id: 2 }, value: { type: 'string', id: 3 } } },
          Item: { fields: { item_id: { type: 'string', id: 1 }, status: { type: 'string', id: 2 }, output: { type: 'Output', id: 3 } } },
          Report: { fields: { items: { rule: 'repeated', type: 'Item', id: 1 }, sha256: { type: 'string', id: 2 } } },
          ReportMetadata: {
            fields: {
              createTime: { type: 'string', id: 1 },
              updateTime: { type: 'string', id: 2 },
              progressPercent: { type: 'int32', id: 3 },
              cancelRequested: { type: 'string', id: 4 },
              requestId: { type: 'string', id: 5 },
            },
          },
        },
      },
    },
  };
  return json;
}

describe.skipIf(BELOW_NODE_22)(`google-gax operations client against google-lro (${NODE_22_REASON})`, () => {
  let s: DialectServer;
  let ops: any;
  let descriptor: LongrunningDescriptor;
  const create = async (requestId: string) => {
    const r = await fetch(`${s.url}${PREFIX}/v1/reports:generate`, {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: requestId, account: 'acct_1' }),
    });
    expect(r.status).toBe(200);
    const json = (await r.json()) as { name: string };
    // The Operation as the generated client hands it to gax: decoded by the operations client.
    const [op] = await ops.getOperation({ name: json.name });
    return op;
  };

  beforeAll(async () => {
    s = await startProfileServer(['google-lro'], { behavior: { default: { duration_ms: 2000, items: 2, cancel_ms: 100 } } });
    // Any AuthClient that adds a bearer token; gax pins its own google-auth-library copy, hence the cast below.
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: 'dev-token', expiry_date: Date.now() + 3_600_000 });
    const gaxGrpc = new fallback.GrpcClient({ fallback: true, authClient: auth as any });
    const protos = gaxGrpc.loadProtoJSON(protosJson());
    // A generated client passes its service's http rules the same way (its service yaml's `http:` section).
    const httpRules = [
      { selector: 'google.longrunning.Operations.GetOperation', get: `${PREFIX}/v1/{name=operations/*}` },
      { selector: 'google.longrunning.Operations.CancelOperation', post: `${PREFIX}/v1/{name=operations/*}:cancel` },
      { selector: 'google.longrunning.Operations.ListOperations', get: `${PREFIX}/v1/{name=operations}` },
    ];
    const port = Number(new URL(s.url).port);
    ops = fallback
      .lro({ authClient: auth, protoJson: protos, httpRules } as any)
      .operationsClient({ servicePath: '127.0.0.1', port, protocol: 'http' } as any);
    const Report = protos.lookupType('jobproof.v1.Report');
    const Meta = protos.lookupType('jobproof.v1.ReportMetadata');
    descriptor = new LongrunningDescriptor(ops, Report.decode.bind(Report) as any, Meta.decode.bind(Meta) as any);
  });
  afterAll(() => s?.stop());

  it('polls an operation to done with LROperation and decodes its response and metadata', async () => {
    const op = operation(await create('gax-full'), descriptor, createDefaultBackoffSettings());
    expect(op.done).toBe(false);
    expect(op.name).toMatch(/^operations\/op-/);
    await op.getOperation();
    expect(op.done).toBeFalsy();
    await s.advance(2500);
    const [result, metadata] = (await op.promise()) as [any, any];
    expect(result.items).toHaveLength(2);
    expect(result.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(metadata).toMatchObject({ progressPercent: 100, requestId: 'gax-full' });
  });

  it('cancel() calls :cancel; the operation ends done with error code 1 (CANCELLED), which promise() rejects with', async () => {
    const op = operation(await create('gax-cancel'), descriptor, createDefaultBackoffSettings());
    await s.advance(200);
    await op.cancel();
    await s.advance(500);
    await expect(op.promise()).rejects.toMatchObject({ code: 1 });
    const [raw] = await ops.getOperation({ name: op.name });
    expect(raw).toMatchObject({ done: true, error: { code: 1 } });
    // A second cancel of a finished operation: FAILED_PRECONDITION as a GoogleError.
    await expect(ops.cancelOperation({ name: op.name })).rejects.toMatchObject({ code: 9 });
  });

  it('listOperations with the AIP-151 filter finds an operation by its request_id (the lookup after a lost create)', async () => {
    await create('gax-find-me');
    const found: any[] = [];
    for await (const o of ops.listOperationsAsync({ name: 'operations', filter: 'metadata.requestId="gax-find-me"' })) found.push(o);
    expect(found).toHaveLength(1);
    expect(found[0].done).toBe(false);
  });

  it('getOperation of an unknown name is NOT_FOUND (code 5)', async () => {
    await expect(ops.getOperation({ name: 'operations/op-nope' })).rejects.toMatchObject({ code: 5 });
  });
});
