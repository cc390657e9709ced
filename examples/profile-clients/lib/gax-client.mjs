// google-gax's operations client over its REST fallback, pointed at the google-lro profile as a generated Google
// Cloud client points it at its API: the service's http rules, the protos of the types its operations' `Any`
// values name, and an auth client (here one holding the fake's token). The create is the API's AIP-151 method,
// which a generated client sends through its own stub and gax wraps in `operation()`: here, `fetch` does the send.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { OAuth2Client } from 'google-auth-library';
import { createDefaultBackoffSettings, fallback, LongrunningDescriptor, operation } from 'google-gax';
import { baseUrl } from './protocol.mjs';

function protosJson() {
  const path = createRequire(import.meta.url)
    .resolve('google-gax')
    .replace(/build\/src\/index\.js$/, 'build/protos/operations.json');
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const s = (id) => ({ type: 'string', id });
  json.nested.jobproof = {
    nested: {
      v1: {
        nested: {
          Output: { fields: { job_id: s(1), index: { type: 'int32', id: 2 }, value: s(3) } },
          ItemError: { fields: { code: s(1), message: s(2) } },
          Item: { fields: { item_id: s(1), status: s(2), output: { type: 'Output', id: 3 }, error: { type: 'ItemError', id: 4 } } },
          Report: { fields: { items: { rule: 'repeated', type: 'Item', id: 1 }, sha256: s(2) } },
          ReportMetadata: {
            fields: {
              createTime: s(1),
              updateTime: s(2),
              progressPercent: { type: 'int32', id: 3 },
              cancelRequested: s(4),
              requestId: s(5),
            },
          },
        },
      },
    },
  };
  return json;
}

export function gaxClient(env) {
  const base = new URL(baseUrl(env, 'google-lro'));
  const PREFIX = base.pathname.replace(/\/$/, '');
  const auth = new OAuth2Client();
  auth.setCredentials({ access_token: env.token, expiry_date: Date.now() + 24 * 3_600_000 });
  // gax's errors carry the status, not the headers: the auth client's fetch (every REST call goes through it) keeps
  // the last answer's headers, so a caller can read Retry-After.
  let lastHeaders = null;
  const authFetch = auth.fetch.bind(auth);
  auth.fetch = async (...args) => {
    try {
      const r = await authFetch(...args);
      lastHeaders = r.headers;
      return r;
    } catch (err) {
      lastHeaders = err?.response?.headers ?? null;
      throw err;
    }
  };
  const protos = new fallback.GrpcClient({ fallback: true, authClient: auth }).loadProtoJSON(protosJson());
  const httpRules = [
    { selector: 'google.longrunning.Operations.GetOperation', get: `${PREFIX}/v1/{name=operations/*}` },
    { selector: 'google.longrunning.Operations.CancelOperation', post: `${PREFIX}/v1/{name=operations/*}:cancel` },
    { selector: 'google.longrunning.Operations.ListOperations', get: `${PREFIX}/v1/{name=operations}` },
  ];
  const ops = fallback
    .lro({ authClient: auth, protoJson: protos, httpRules })
    .operationsClient({ servicePath: base.hostname, port: Number(base.port || 80), protocol: base.protocol.replace(':', '') });
  const Report = protos.lookupType('jobproof.v1.Report');
  const Meta = protos.lookupType('jobproof.v1.ReportMetadata');
  const descriptor = new LongrunningDescriptor(ops, Report.decode.bind(Report), Meta.decode.bind(Meta));
  return {
    ops,
    lastHeaders: () => lastHeaders,
    /** The AIP-151 create: POST /v1/reports:generate → the Operation, as JSON, or an error with status and headers. */
    async create(body, headers = {}, signal) {
      const r = await fetch(`${base.origin}${PREFIX}/v1/reports:generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal,
      });
      const json = await r.json().catch(() => null);
      if (!r.ok) throw Object.assign(new Error(`${r.status} ${JSON.stringify(json)}`), { status: r.status, headers: r.headers });
      return json;
    },
    /** gax's LROperation for an operation name (fetched through the operations client). */
    async operation(name, options) {
      const [op] = await ops.getOperation({ name }, options);
      return operation(op, descriptor, createDefaultBackoffSettings());
    },
    decodeReport: (op) => (op.response?.value ? Report.toObject(Report.decode(op.response.value)) : null),
  };
}
