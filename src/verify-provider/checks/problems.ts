import { brief, type Answer } from '../http.js';
import { fail, problemFaults } from '../helpers.js';
import type { Check } from '../types.js';

export const problemsRfc9457: Check = {
  name: 'problems.rfc9457',
  description: 'every error answer is application/problem+json with type, title, status, code, detail and request_id = X-Request-ID',
  async run(ctx, ev) {
    const probes: Array<[string, () => Promise<Answer>]> = [
      ['no token', () => ctx.http.call('GET', '/v1/jobs/job_nope', { token: null })],
      ['unknown job', () => ctx.http.call('GET', `/v1/jobs/job_${ctx.runId}_missing`)],
      ['invalid JSON', () => ctx.http.call('POST', '/v1/jobs', { headers: { 'idempotency-key': ctx.key('p1') }, body: '{"kind":' })],
      [
        'schema violation',
        () => ctx.http.call('POST', '/v1/jobs', { headers: { 'idempotency-key': ctx.key('p2') }, body: { kind: 'BAD KIND!', input: 3 } }),
      ],
      ['no key', () => ctx.http.call('POST', '/v1/jobs', { body: { kind: 'report', input: {} } })],
      ['unknown task', () => ctx.http.call('GET', `/v1/tasks/task_${ctx.runId}_missing`)],
      [
        'task without key',
        () => ctx.http.call('POST', '/v1/tasks', { body: { type: 'propose_update', object_ref: 'x', object_version: 1, input: {} } }),
      ],
    ];
    const bad: string[] = [];
    for (const [label, send] of probes) {
      const a = await send();
      const faults = a.status >= 400 ? problemFaults(a) : [`expected an error, got ${a.status}`];
      ev.push(`${label} → ${brief(a)}${faults.length ? ` ✗ ${faults.join('; ')}` : ' ✓'}`);
      if (a.status === 404 && label === 'unknown task' && a.json?.code === 'not_found') continue; // no tasks API: still a problem
      if (faults.length) bad.push(`${label}: ${faults.join('; ')}`);
      if (label === 'invalid JSON' && a.json?.code !== 'invalid_json') bad.push(`invalid JSON: code ${a.json?.code}, not invalid_json`);
      if (label === 'schema violation' && (a.json?.code !== 'invalid_request' || !Array.isArray(a.json?.errors)))
        bad.push('schema violation: not 400 invalid_request with errors[]');
      if (label === 'no token' && a.status !== 401) bad.push(`no token: ${a.status}, not 401`);
    }
    if (bad.length) fail(bad.join(' | '));
    return `${probes.length} error answers, all RFC 9457 problems with a code`;
  },
};

/** Requests no client should send; each must get a 4xx (or a 2xx where harmless), never a 5xx or a dropped connection. */
function garbage(ctx: {
  runId: string;
}): Array<{ label: string; method: string; path: string; headers?: Record<string, string>; body?: string; token?: string | null }> {
  const k = (n: number) => ({ 'idempotency-key': `${ctx.runId}-g${n}` });
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  return [
    { label: 'truncated JSON', method: 'POST', path: '/v1/jobs', headers: k(1), body: '{"kind": "report", "input": {' },
    { label: 'JSON array body', method: 'POST', path: '/v1/jobs', headers: k(2), body: '[1,2,3]' },
    { label: 'JSON null body', method: 'POST', path: '/v1/jobs', headers: k(3), body: 'null' },
    { label: 'deeply nested JSON', method: 'POST', path: '/v1/jobs', headers: k(4), body: `{"kind":"report","input":{"a":${deep}}}` },
    { label: 'binary body', method: 'POST', path: '/v1/jobs', headers: k(5), body: '\u0000\u0001\u00ff\ufffd' },
    { label: 'input a string', method: 'POST', path: '/v1/jobs', headers: k(6), body: '{"kind":"report","input":"x"}' },
    { label: 'huge kind', method: 'POST', path: '/v1/jobs', headers: k(7), body: JSON.stringify({ kind: 'a'.repeat(10_000), input: {} }) },
    {
      label: 'key of 300 chars',
      method: 'POST',
      path: '/v1/jobs',
      headers: { 'idempotency-key': 'x'.repeat(300) },
      body: '{"kind":"report","input":{}}',
    },
    {
      label: 'malformed sf-string key',
      method: 'POST',
      path: '/v1/jobs',
      headers: { 'idempotency-key': '"abc' },
      body: '{"kind":"report","input":{}}',
    },
    { label: 'cancel with garbage body', method: 'POST', path: '/v1/jobs/job_x/cancel', body: '{{{{' },
    { label: 'odd job id', method: 'GET', path: '/v1/jobs/%00%ff..%2F..' },
    { label: 'list with bad limit', method: 'GET', path: '/v1/jobs?limit=-5&cursor=zz' },
    { label: 'list with huge limit', method: 'GET', path: '/v1/jobs?client_ref=x&limit=999999999999999999999' },
    { label: 'unknown path', method: 'GET', path: '/v1/../../etc/passwd' },
    { label: 'wrong method', method: 'DELETE', path: '/v1/jobs' },
    { label: 'PATCH a job', method: 'PATCH', path: '/v1/jobs/job_x', body: '{}' },
    { label: 'garbage bearer', method: 'GET', path: '/v1/jobs/job_x', token: null, headers: { authorization: 'Bearer \u00e9\u00e9' } },
    { label: 'task: truncated JSON', method: 'POST', path: '/v1/tasks', headers: k(8), body: '{"type":' },
    {
      label: 'task: wrong types',
      method: 'POST',
      path: '/v1/tasks',
      headers: k(9),
      body: '{"type":"propose_update","object_ref":7,"object_version":"x","input":[]}',
    },
    {
      label: 'task: negative version',
      method: 'POST',
      path: '/v1/tasks',
      headers: k(10),
      body: '{"type":"propose_update","object_ref":"o","object_version":-1,"input":{}}',
    },
    { label: 'review: garbage', method: 'POST', path: '/v1/tasks/task_x/review', body: '{"decision":"maybe","proposal_version":"one"}' },
    { label: 'apply: garbage body', method: 'POST', path: '/v1/tasks/task_x/apply', headers: k(11), body: '"apply!"' },
    { label: 'object: odd ref', method: 'GET', path: '/v1/objects/%2e%2e%2f%00' },
  ];
}

export const garbageNo5xx: Check = {
  name: 'garbage.no-5xx',
  description: 'garbage never yields a 5xx (nor a dropped connection)',
  async run(ctx, ev) {
    const bad: string[] = [];
    const list = garbage(ctx);
    for (const g of list) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...g.headers };
      const out = await ctx.http.try(g.method, g.path, { token: g.token, headers, body: g.body });
      if (!out.ok) {
        bad.push(`${g.label}: no answer (${out.error})`);
        ev.push(`${g.label} → no answer`);
        continue;
      }
      ev.push(`${g.label} → ${brief(out.answer)}`);
      if (out.answer.status >= 500) bad.push(`${g.label}: ${out.answer.status}`);
    }
    if (bad.length) fail(bad.join(' | '));
    return `${list.length} garbage requests, no 5xx`;
  },
};
