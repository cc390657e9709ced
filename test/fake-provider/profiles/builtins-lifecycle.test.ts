import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idOfCreate, stateOfView } from '../../../src/contract/profile-read.js';
import { getPath } from '../../../src/contract/profile-template.js';
import type { DialectServer } from '../dialects/helpers.js';
import { authOf, builtin, sampleBody, startProfileServer } from './helpers.js';

/** Every built-in profile serves create → read → cancel → results over real HTTP, in its own shapes. */
const NAMES = ['native', 'google-lro', 'gemini-batch', 'azure-lro', 'replicate'];

let s: DialectServer;
beforeAll(async () => {
  s = await startProfileServer(NAMES);
  await s.control('PUT', '/_control/behavior', { body: { default: { duration_ms: 2000, items: 2, commit_point: 0.8 } } });
});
afterAll(() => s.stop());

describe.each(NAMES)('built-in profile %s', (name) => {
  const p = builtin(name);
  const path = (t: string, id: string) => `${p.prefix}${t.replace('{id}', encodeURIComponent(id)).replace('{model}', 'gemini-2.5-flash')}`;
  const create = async (tag: string) => {
    const auth = authOf(p);
    const keyHeader = p.idempotency.source === 'header' ? { [p.idempotency.name]: `key-${tag}` } : {};
    const r = await s.call(p.create.route.method, path(p.create.route.path, ''), {
      ...auth,
      headers: { ...auth.headers, ...keyHeader },
      body: sampleBody(name, tag),
    });
    expect(r.status, r.text).toBe(p.create.status);
    const id = idOfCreate(p, r.json, (h) => r.headers.get(h));
    expect(id, `id in ${r.text}`).toBeTruthy();
    return id!;
  };
  const read = async (id: string) => {
    const r = await s.call(p.read.route.method, path(p.read.route.path, id), authOf(p));
    expect(r.status, r.text).toBe(200);
    return r;
  };

  it('creates a job and reads it until it succeeds, then hands out its results', async () => {
    const id = await create(`${name}-a`);
    const first = await read(id);
    expect(['queued', 'running']).toContain(stateOfView(p, first.json));
    if (p.retry_after?.reads) expect(first.headers.get('retry-after')).not.toBeNull();
    await s.advance(3000);
    const done = await read(id);
    expect(stateOfView(p, done.json)).toBe('succeeded');
    if (p.results.mode === 'inline') {
      const items = JSON.stringify(done.json);
      expect(items).toContain('item_0002');
    } else {
      const r = await s.call(p.results.route!.method, path(p.results.route!.path, id), authOf(p));
      expect(r.status, r.text).toBe(200);
      expect(r.text.trim().split('\n')).toHaveLength(2);
    }
  });

  it('cancels a running job: it ends cancelled', async () => {
    const id = await create(`${name}-b`);
    await s.advance(100);
    const c = p.cancel && 'route' in p.cancel ? p.cancel : undefined;
    expect(c).toBeDefined();
    const r = await s.call(c!.route.method, path(c!.route.path, id), authOf(p));
    expect(r.status, r.text).toBe(c!.status);
    await s.advance(3000);
    expect(stateOfView(p, (await read(id)).json)).toBe('cancelled');
  });

  it('answers an unknown job with its own 404 envelope', async () => {
    const r = await s.call('GET', path(p.read.route.path, 'nope-404'), authOf(p));
    expect(r.status).toBe(404);
    const code = p.errors.codes.job_not_found ?? 'job_not_found';
    if (name !== 'replicate') expect(r.text).toContain(String(code));
    expect(r.headers.get('content-type')).toContain(p.errors.content_type);
  });

  it('finds the job of a lost create by the profile lookup route', async () => {
    if (!p.find) return;
    const id = await create(`${name}-c`);
    const flt = p.find.filters[0];
    const q = flt
      ? `?${flt.param}=${encodeURIComponent((flt.pattern ?? '{value}').replace('{value}', flt.by === 'idempotency_key' && p.idempotency.source === 'header' ? `key-${name}-c` : `${name}-c`))}`
      : '';
    const r = await s.call('GET', `${p.prefix}${p.find.route.path}${q}`, authOf(p));
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain(id);
    if (flt)
      expect(JSON.stringify(getPath(r.json, Object.keys(r.json).find((k) => Array.isArray(r.json[k]))!))).not.toContain(`${name}-a"`);
  });
});
