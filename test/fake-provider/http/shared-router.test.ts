import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { SharedTableRouter } from '../../../src/fake-provider/http/shared-router.js';

/** An app with the given answer text, on the shared router: the same table each time. */
function app(tag: string, extra?: (a: Hono) => void): Hono {
  const a = new Hono({ router: new SharedTableRouter() });
  a.use('*', async (c, next) => {
    await next();
    c.res.headers.set('x-app', tag);
  });
  a.get('/v1/jobs/:id', (c) => c.text(`${tag} read ${c.req.param('id')}`));
  a.post('/v1/jobs', (c) => c.text(`${tag} create`));
  a.get('/v1/jobs/:id/results', (c) => c.text(`${tag} results ${c.req.param('id')}`));
  a.get('/files/*', (c) => c.text(`${tag} file ${c.req.path}`));
  extra?.(a);
  return a;
}

async function get(a: Hono, path: string, method = 'GET'): Promise<[number, string, string | null]> {
  const res = await a.request(path, { method });
  return [res.status, await res.text(), res.headers.get('x-app')];
}

describe('SharedTableRouter', () => {
  it('each app answers with its own handlers and params, though the matcher is shared', async () => {
    const a = app('a');
    const b = app('b');
    expect(await get(a, '/v1/jobs/j1')).toEqual([200, 'a read j1', 'a']);
    expect(await get(b, '/v1/jobs/j2')).toEqual([200, 'b read j2', 'b']);
    expect(await get(b, '/v1/jobs/j3/results')).toEqual([200, 'b results j3', 'b']);
    expect(await get(a, '/v1/jobs', 'POST')).toEqual([200, 'a create', 'a']);
    expect(await get(a, '/files/x/y.txt')).toEqual([200, 'a file /files/x/y.txt', 'a']);
    expect((await get(b, '/v1/nothing'))[0]).toBe(404);
    expect((await get(a, '/v1/jobs', 'DELETE'))[0]).toBe(404);
  });

  it('matches as the default router does, route for route', async () => {
    const paths = ['/v1/jobs/j1', '/v1/jobs/j1/results', '/files/a', '/v1/jobs', '/v1/jobs/%20x', '/other'];
    const plain = new Hono();
    plain.get('/v1/jobs/:id', (c) => c.text(`read ${c.req.param('id')}`));
    plain.post('/v1/jobs', (c) => c.text('create'));
    plain.get('/v1/jobs/:id/results', (c) => c.text(`results ${c.req.param('id')}`));
    plain.get('/files/*', (c) => c.text(`file ${c.req.path}`));
    const shared = app('');
    for (const p of paths) {
      for (const m of ['GET', 'POST']) {
        const want = await plain.request(p, { method: m });
        const got = await shared.request(p, { method: m });
        expect([got.status, (await got.text()).trim()]).toEqual([want.status, (await want.text()).trim()]);
      }
    }
  });

  it('a route added after the first match is matched (another table)', async () => {
    const a = app('a');
    expect((await get(a, '/late'))[0]).toBe(404);
    a.get('/late', (c) => c.text('late'));
    expect(await get(a, '/late')).toEqual([200, 'late', 'a']);
    const b = app('b', (x) => x.get('/late', (c) => c.text('b late')));
    expect(await get(b, '/late')).toEqual([200, 'b late', 'b']);
  });
});
