import { describe, expect, it } from 'vitest';
import { inProcessRequest, keepCallerSignal } from '../../../src/fake-provider/transports/in-process-request.js';

const BASE = 'http://jobproof.test';

describe('inProcessRequest', () => {
  it("carries the caller's own signal: aborted at the same moment, with the same reason", async () => {
    const ac = new AbortController();
    const req = inProcessRequest(`${BASE}/v1/jobs`, { method: 'POST', body: '{"a":1}', signal: ac.signal }, BASE);
    expect(req.signal).toBe(ac.signal);
    expect(req.signal.aborted).toBe(false);
    const reason = new Error('client timeout');
    ac.abort(reason);
    expect(req.signal.aborted).toBe(true);
    expect(req.signal.reason).toBe(reason);
    expect(await req.text()).toBe('{"a":1}');
    expect(req.method).toBe('POST');
  });

  it('resolves a relative path against the base and keeps method, headers and body', async () => {
    const req = inProcessRequest('/v1/jobs/j1?x=1', { method: 'GET', headers: { 'x-trace-id': 't1' } }, BASE);
    expect(req.url).toBe(`${BASE}/v1/jobs/j1?x=1`);
    expect(req.headers.get('x-trace-id')).toBe('t1');
    expect(req.headers.has('content-length')).toBe(false);
  });

  it("leaves undici's own signal to any other body (a multipart upload) and to a Request given whole", () => {
    const ac = new AbortController();
    const form = new FormData();
    form.set('file', new Blob(['x']), 'f.jsonl');
    const upload = inProcessRequest(`${BASE}/v1/files`, { method: 'POST', body: form, signal: ac.signal }, BASE);
    expect(Object.hasOwn(upload, 'signal')).toBe(false);
    ac.abort();
    expect(upload.signal.aborted).toBe(true);
    const given = new Request(`${BASE}/v1/jobs`);
    expect(inProcessRequest(given, undefined, BASE)).toBe(given);
  });

  it('a request rebuilt by the body guard keeps the caller signal', async () => {
    const ac = new AbortController();
    const req = inProcessRequest(`${BASE}/v1/jobs`, { method: 'POST', body: '{}', signal: ac.signal }, BASE);
    const rebuilt = keepCallerSignal(req, new Request(req, { body: '{}' }));
    expect(rebuilt.signal).toBe(ac.signal);
    const plain = new Request(`${BASE}/v1/jobs`, { method: 'POST', body: '{}' });
    const copy = keepCallerSignal(plain, new Request(plain, { body: '{}' }));
    expect(Object.hasOwn(copy, 'signal')).toBe(false);
  });
});
