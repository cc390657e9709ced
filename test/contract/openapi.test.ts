import { compileErrors, validate } from '@readme/openapi-parser';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/contract/openapi/document.js';
import { createProvider, type Provider } from '../../src/fake-provider/index.js';

/** Routes a dialect mounts: documented by their vendors (OpenAI, Anthropic), not in jobproof's document. */
const DIALECT_PREFIXES = ['/openai/', '/anthropic/'];
const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

const open: Provider[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});
function provider(): Provider {
  // With a scenario lookup, as `jobproof serve` runs it: PUT /_control/scenario is served too.
  const p = createProvider({ scenarioLookup: () => undefined });
  open.push(p);
  return p;
}

type Doc = { paths: Record<string, Record<string, unknown>> };
const documented = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => METHODS.filter((m) => m in ops).map((m) => `${m.toUpperCase()} ${path}`));

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (@readme/openapi-parser)', async () => {
    const doc = openApiDocument();
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
  });

  it('is committed as docs/openapi.json, up to date (npm run openapi regenerates it)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(committed, 'docs/openapi.json is stale: run `npm run openapi`').toEqual(openApiDocument());
  });

  it('lists every route the provider serves, and no route it does not serve', () => {
    const served = new Set(
      provider()
        .app.routes.filter((r) => r.method !== 'ALL') // ALL: middleware and the 405 answers of known paths
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
        .filter((r) => !DIALECT_PREFIXES.some((p) => r.split(' ')[1]!.startsWith(p))),
    );
    expect([...served].sort()).toEqual(documented(openApiDocument() as Doc).sort());
  });

  it('is served at GET /openapi.json, outside the journal', async () => {
    const p = provider();
    const before = p.journal.lastSeq();
    const res = await p.fetch('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(openApiDocument());
    expect(p.journal.lastSeq()).toBe(before);
  });

  it('describes the answers the provider really gives (a created job read back matches the Job schema)', async () => {
    const p = provider();
    const headers = { authorization: 'Bearer dev-token', 'idempotency-key': 'k-1', 'content-type': 'application/json' };
    const created = await (
      await p.fetch('/v1/jobs', { method: 'POST', headers, body: JSON.stringify({ kind: 'report', input: {} }) })
    ).json();
    const job = await (await p.fetch(`/v1/jobs/${created.job_id}`, { headers })).json();
    const doc = openApiDocument() as { components: { schemas: { Job: { required: string[]; properties: Record<string, unknown> } } } };
    expect(Object.keys(job).sort()).toEqual([...doc.components.schemas.Job.required].sort());
    expect(Object.keys(doc.components.schemas.Job.properties).sort()).toEqual(Object.keys(job).sort());
  });
});
