import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAIN_LIMIT_BYTES } from '../../../src/fake-provider/http/body-guard.js';
import { journalEntryFor, newKey, startProviderServer, type ProviderServer } from '../../helpers/provider-server.js';

let ps: ProviderServer;
beforeAll(async () => {
  ps = await startProviderServer();
});
afterAll(async () => ps.stop());

/** Python's http.client writes the whole body before it reads the answer; it must still read the 413 (issue 11). */
const PY = `
import http.client, json, socket, sys
host, port, key, size, token = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
body = b'{"kind":"report","input":{"blob":"' + b'x' * size + b'"}}'
conn = http.client.HTTPConnection(host, port, timeout=30)
conn.connect()
# A small send buffer, as on a real network: the body is still being written when the server decides. A server that
# answers 413 and closes before reading makes this a BrokenPipeError every time (measured: 3 of 3 before the fix).
conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
conn.request('POST', '/v1/jobs', body=body, headers={'Authorization': 'Bearer ' + token, 'Idempotency-Key': key, 'Content-Type': 'application/json'})
res = conn.getresponse()
out = {'status': res.status, 'content_type': res.getheader('content-type'), 'request_id': res.getheader('x-request-id'), 'problem': json.loads(res.read())}
# The connection is still usable: the server read the whole body.
conn.request('GET', '/v1/jobs?limit=1', headers={'Authorization': 'Bearer dev-token'})
out['next_status'] = conn.getresponse().status
print(json.dumps(out))
`;

function runPython(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', PY, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('bodies over 1 MiB, and answers given before a body was read', () => {
  it('Python http.client sending 2 MiB reads the 413 problem (no BrokenPipeError) and can reuse the connection', async () => {
    const key = newKey('py');
    const r = await runPython([ps.server.host, String(ps.server.port), key, String(2 * 1024 * 1024), 'dev-token']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe(413);
    expect(out.content_type).toMatch(/^application\/problem\+json/);
    expect(out.problem).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(out.next_status).toBe(200);
    const entry = ps.provider.journal.all().find((e) => e.type === 'request' && e.request_id === out.request_id);
    expect(entry).toMatchObject({ status: 413, code: 'payload_too_large', effect: 'none', job_id: null });
  });

  it('an answer given before the body was read (401 on a 1000 KiB create) also reaches Python http.client', async () => {
    // The transport reads the unread rest before it answers (bounded like the 413), instead of closing on it.
    const r = await runPython([ps.server.host, String(ps.server.port), newKey('py'), String(1000 * 1024), 'wrong-token']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe(401);
    expect(out.problem).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(out.next_status).toBe(200);
  });

  it(`past ${DRAIN_LIMIT_BYTES} declared bytes: 413 at once and the connection is closed`, async () => {
    const res = await new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: ps.server.host,
          port: ps.server.port,
          method: 'POST',
          path: '/v1/jobs',
          headers: {
            authorization: 'Bearer dev-token',
            'idempotency-key': newKey(),
            'content-type': 'application/json',
            'content-length': String(DRAIN_LIMIT_BYTES + 1),
          },
        },
        (r) => {
          let body = '';
          r.on('data', (d) => (body += d));
          r.on('end', () => resolve({ status: r.statusCode!, connection: r.headers.connection, body }));
        },
      );
      req.on('error', reject);
      // A few bytes only: the answer must not wait for the rest.
      req.write('{"kind":');
    });
    expect(res.status).toBe(413);
    expect(res.connection).toBe('close');
    expect(JSON.parse(res.body).code).toBe('payload_too_large');
  });

  it('a body within the limit is untouched by the guard, with or without Content-Length', async () => {
    const body = JSON.stringify({ kind: 'report', input: { blob: 'y'.repeat(512 * 1024) } });
    const sized = await fetch(`${ps.url}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'idempotency-key': newKey() },
      body,
    });
    expect(sized.status).toBe(202);
    const chunked = await fetch(`${ps.url}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: 'Bearer dev-token', 'idempotency-key': newKey() },
      body: new Blob([body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(202);
    const created = (await chunked.json()) as { job_id: string };
    expect(journalEntryFor(ps.provider, chunked)).toMatchObject({ effect: 'created', job_id: created.job_id });
  });
});
