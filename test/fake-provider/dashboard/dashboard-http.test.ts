import { afterEach, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../../../src/fake-provider/index.js';

const AUTH = { authorization: 'Bearer dev-token', 'content-type': 'application/json' };
const CONTROL = 'control-token';
let provider: Provider;

function start(): Provider {
  provider = createProvider({
    scenarioLookup: (n) =>
      n === 'lost-create-response' ? { behavior: {}, faults: { rules: [{ on: 'create', nth: 1, fault: 'lose_response' }] } } : undefined,
    dashboard: { hosts: ['jobproof.test'], scenarios: { names: ['lost-create-response'] } },
  });
  return provider;
}
afterEach(() => provider?.close());

const dash = (path: string, init?: RequestInit) => provider.fetch(`http://localhost/_dashboard${path}`, init);

describe('/_dashboard over HTTP', () => {
  it('escapes what the client sent, in a body and in a header', async () => {
    start();
    await dash(''); // someone watches: exchanges are recorded from now on
    await provider.fetch('/v1/jobs', {
      method: 'POST',
      headers: { ...AUTH, 'idempotency-key': 'k-<script>alert(1)</script>', 'x-trace-id': '<script>alert(2)</script>' },
      body: JSON.stringify({ kind: 'report', input: { note: '<script>alert(3)</script>' } }),
    });
    const html = await (await dash('')).text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).not.toMatch(/<script>alert/);
    // The opened row: the entry, the captured headers and body, and the curl command, all as text.
    const seq = provider.journal.lastSeq();
    const detail = await (await dash(`/entry/${seq}?fragment=1`)).text();
    expect(detail).toContain('alert(3)');
    expect(detail).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(detail).not.toMatch(/<script>alert/);
    expect(detail).toContain('copy as curl');
  });

  it('is never journalled, and refuses foreign Host names (DNS rebinding)', async () => {
    start();
    const before = provider.journal.lastSeq();
    expect((await dash('')).status).toBe(200);
    expect((await dash('/jobs')).status).toBe(200);
    expect((await dash('/faults')).status).toBe(200);
    expect((await dash('/nope')).status).toBe(404);
    expect(provider.journal.lastSeq()).toBe(before);
    // A plan that loses every answer on every request route does not touch the dashboard.
    provider.control.setFaults({
      rules: (['status', 'list', 'create', 'cancel', 'results'] as const).map((on) => ({ on, fault: { type: 'lose_response' as const } })),
    });
    expect((await dash('')).status).toBe(200);
    expect(provider.journal.lastSeq()).toBe(before);
    const evil = await provider.fetch('http://attacker.example/_dashboard/', { headers: { host: 'attacker.example' } });
    expect(evil.status).toBe(421);
  });

  it('changes the plan only with the control token and the CSRF token, with validation messages', async () => {
    start();
    const page = await (await dash('/faults')).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    const post = (form: string, fields: Record<string, string>) =>
      dash(`/faults/${form}`, { method: 'POST', body: new URLSearchParams(fields) });
    expect((await post('scenario', { name: 'lost-create-response', control_token: CONTROL, csrf: 'forged' })).status).toBe(403);
    expect((await post('scenario', { name: 'lost-create-response', control_token: 'wrong', csrf })).status).toBe(403);
    expect(provider.core.faults.describe().rules).toHaveLength(0);
    const bad = await post('plan', { json: '{"rules":[{"on":"create","fault":"drop"}]}', control_token: CONTROL, csrf });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('does not apply to requests');
    const ok = await post('scenario', { name: 'lost-create-response', control_token: CONTROL, csrf });
    expect(ok.status).toBe(200);
    expect(provider.core.faults.describe().rules).toHaveLength(1);
  });

  it('streams entries as SSE with the journal sequence as id, replaying the gap after Last-Event-ID', async () => {
    start();
    for (let i = 0; i < 3; i++) await provider.fetch('/v1/jobs?limit=1', { headers: AUTH });
    // app.request, not the in-process fetch: the stream never ends, and only the app hands it over as it goes.
    const res = await provider.app.request('http://localhost/_dashboard/stream', { headers: { 'last-event-id': '1' } });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('id: 3')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toContain('id: 2');
    expect(text).not.toContain('id: 1\n');
  });

  it('exports the journal as JSON and NDJSON', async () => {
    start();
    for (let i = 0; i < 3; i++) await provider.fetch('/v1/jobs?limit=1', { headers: AUTH });
    const json = await (await dash('/export.json')).json();
    expect(json.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3]);
    const nd = (await (await dash('/export.ndjson')).text()).trim().split('\n');
    expect(nd.map((l) => JSON.parse(l).seq)).toEqual([1, 2, 3]);
  });
});
