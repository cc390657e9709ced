import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { referenceCommand } from '../../../../src/cli/reference-command.js';
import { calibrate } from '../../../../src/conformance/calibrate.js';
import { freePort } from '../../../../src/conformance/runner/process/free-port.js';
import { WebhookRelay } from '../../../../src/conformance/runner/process/webhook-relay.js';
import { runScenarioProcess } from '../../../../src/conformance/runner/run-scenario.js';
import { getScenario, scaleScenarioTime } from '../../../../src/scenarios/index.js';

interface Worker {
  port: number;
  got: Array<{ path: string; body: string; signature: string | undefined }>;
  server: http.Server;
}

async function worker(status: number): Promise<Worker> {
  const got: Worker['got'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({
        path: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        signature: req.headers['webhook-signature'] as string,
      });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`worker ${status}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, got, server };
}

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((c) => c()));
});

async function relayTo(ports: () => number[]): Promise<WebhookRelay> {
  const relay = await WebhookRelay.start(ports);
  closing.push(() => relay.close());
  return relay;
}

const post = (url: string, body: string) =>
  fetch(`${url}hooks`, { method: 'POST', headers: { 'webhook-signature': 'v1,abc', 'content-type': 'application/json' }, body });

describe('the run’s webhook relay (a balancer in front of a project endpoint)', () => {
  it('hands each delivery, unchanged, to one worker in turn, and passes its answer back', async () => {
    const [a, b] = await Promise.all([worker(204), worker(401)]);
    closing.push(async () => void (await Promise.all([a, b].map((w) => new Promise((r) => w.server.close(r))))));
    const relay = await relayTo(() => [a.port, b.port]);
    const answers = [];
    for (const n of [1, 2, 3]) answers.push((await post(relay.url, `{"n":${n}}`)).status);
    expect(answers).toEqual([204, 401, 204]);
    expect(a.got.map((g) => g.body)).toEqual(['{"n":1}', '{"n":3}']);
    expect(b.got).toEqual([{ path: '/hooks', body: '{"n":2}', signature: 'v1,abc' }]);
  });

  it('passes over a worker that does not take the connection, and fails the delivery (502) when none does', async () => {
    const live = await worker(204);
    closing.push(() => new Promise((r) => live.server.close(() => r())));
    const dead = await freePort();
    let ports = [dead, live.port];
    const relay = await relayTo(() => ports);
    expect((await post(relay.url, 'x')).status).toBe(204);
    expect((await post(relay.url, 'y')).status).toBe(204);
    expect(live.got.map((g) => g.body)).toEqual(['x', 'y']);
    ports = [dead];
    expect((await post(relay.url, 'z')).status).toBe(502);
    ports = [];
    expect((await post(relay.url, 'z')).status).toBe(502);
  });
});

// The built reference client (npm run build first), as certify runs it.
const command = referenceCommand(fileURLToPath(new URL('../../../../dist/cli/', import.meta.url)));

describe('a process run in the OpenAI dialect with webhooks', () => {
  it('runs as its own project: the run tenant’s events reach the worker through the relay, forgeries are refused by it', {
    timeout: 120_000,
  }, async () => {
    // Under the same calibration certify uses, so the verdict is not a matter of machine load.
    const { factor } = await calibrate(command);
    const run = await runScenarioProcess(scaleScenarioTime(getScenario('forged-webhook'), factor), command, {
      timeScale: factor,
      dialect: 'openai',
    });
    expect(run.evidence.principal.tenant).toMatch(/^run-[0-9a-f]{12}$/);
    const hooks = run.evidence.journal.filter((e) => e.type === 'webhook');
    const creates = run.evidence.journal.filter((e) => e.type === 'request' && e.route === 'create');
    expect(creates.every((e) => e.type === 'request' && e.tenant === run.evidence.principal.tenant)).toBe(true);
    // The worker's own receiver answered: 401 to both forgeries (one unsigned, one with a wrong secret), 204 to the event.
    // The wrong-secret forgery and the real event go out together: compare them in any order.
    expect(hooks.map((h) => h.type === 'webhook' && `${h.event_type} ${h.forged ?? 'real'} ${h.status}`).sort()).toEqual([
      'batch.completed real 204',
      'batch.failed unsigned 401',
      'batch.failed wrong_secret 401',
    ]);
    expect(run.outcome.verdict, run.diagnostics.join('\n')).toBe('pass');
  });
});
