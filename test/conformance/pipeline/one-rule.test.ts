/**
 * Decision 011's one pass rule, shown end to end: the same in-process client certified through the library
 * (`certifyInProcess` / `expectCertified`) and through the `certify` command (its action, flags and all) gets the
 * same verdict per case and the same certificate — for a client that passes, one that breaks an invariant, and one
 * whose every case is not_exercised (a client that says it listens for webhooks and ignores them: the webhook
 * faults never fire). The last was certified by the library and refused by the command before the pipeline.
 */
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerCertify } from '../../../src/cli/certify-command.js';
import { certify } from '../../../src/conformance/pipeline/certify.js';
import { mergeReports } from '../../../src/conformance/report/merge.js';
import { certifyInProcess, expectCertified, inProcessPlan } from '../../../src/conformance/testing.js';
import type { InProcessClientFactory } from '../../../src/contract/client-protocol.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { createTaskClient } from '../../../src/reference-client/tasks/index.js';

/** The reference client without its webhook listener: the harness's webhooks go nowhere. */
const deaf: InProcessClientFactory = async (o) => {
  const c = await createReferenceClient({ ...o, webhook: undefined });
  return {
    submit: (op) => c.submit(op),
    cancel: (id, i) => c.cancel(id, i),
    work: (w) => c.work(w),
    show: (id) => c.show(id),
    close: () => c.close?.(),
  };
};

/** A fresh Idempotency-Key on every create retry (I2): broken wherever a create answer is lost. */
const newKeyOnRetry: InProcessClientFactory = (o) => {
  const sent = new Set<string>();
  let n = 0;
  const fetch: typeof globalThis.fetch = (input, init) => {
    const req = new Request(input, init);
    const key = req.headers.get('idempotency-key');
    if (req.method !== 'POST' || new URL(req.url).pathname !== '/v1/jobs' || !key || !sent.has(key)) {
      if (key) sent.add(key);
      return o.fetch(req);
    }
    const headers = new Headers(req.headers);
    headers.set('idempotency-key', `idem_retry_${++n}`);
    return o.fetch(new Request(req, { headers }));
  };
  return createReferenceClient({ ...o, fetch });
};

/** `jobproof certify --in-process …` on the given client: the command's own action, its output and exit code. */
async function viaCommand(factory: InProcessClientFactory, scenarios: string[]) {
  const program = new Command().exitOverride();
  registerCertify(program, 'test', {
    inProcess: async () => ({
      jobs: factory,
      tasks: (env) => createTaskClient({ ...env, workerId: 'task-worker-1' }),
      label: 'under test',
    }),
  });
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    lines.push(String(s));
    return true;
  });
  try {
    process.exitCode = undefined;
    await program.parseAsync(['certify', '--in-process', '--scenarios', scenarios.join(','), '--runs', '0', '--seed', '5'], {
      from: 'user',
    });
    return { exitCode: process.exitCode, output: lines.join('') };
  } finally {
    write.mockRestore();
    process.exitCode = undefined;
  }
}

async function viaLibrary(factory: InProcessClientFactory, scenarios: string[]) {
  const r = await certifyInProcess(factory, { scenarios, runs: 0, seed: 5 });
  const thrown = await expectCertified(factory, { scenarios, runs: 0, seed: 5 }).then(
    () => null,
    (e: Error) => e.message,
  );
  return { r, thrown };
}

const verdicts = (cases: { name: string; verdict: string }[]) => cases.map((c) => `${c.name}: ${c.verdict}`);

describe('one pass rule for the certify command and the library', () => {
  afterEach(() => vi.restoreAllMocks());

  it('every case not_exercised: neither certifies', async () => {
    const scenarios = ['duplicate-webhook', 'out-of-order-webhooks'];
    const lib = await viaLibrary(deaf, scenarios);
    const cli = await viaCommand(deaf, scenarios);
    expect(verdicts(lib.r.report.cases)).toEqual(['duplicate-webhook: not_exercised', 'out-of-order-webhooks: not_exercised']);
    expect(lib.r.ok).toBe(false);
    expect(lib.thrown).toMatch(/not certified[\s\S]*no case passed/);
    expect(cli.exitCode).toBe(1);
    expect(cli.output).toMatch(/FAILED: 0 pass, 0 fail, 2 not exercised of 2 cases/);
  }, 120_000);

  it('a pass beside a not_exercised: both certify', async () => {
    const scenarios = ['dropped-webhooks', 'out-of-order-webhooks'];
    const lib = await viaLibrary(deaf, scenarios);
    const cli = await viaCommand(deaf, scenarios);
    expect(verdicts(lib.r.report.cases)).toEqual(['dropped-webhooks: pass', 'out-of-order-webhooks: not_exercised']);
    expect([lib.r.ok, lib.thrown]).toEqual([true, null]);
    expect(cli.exitCode).toBe(0);
    expect(cli.output).toMatch(/PASSED: 1 pass, 0 fail, 1 not exercised of 2 cases/);
  }, 120_000);

  it('a broken invariant: neither certifies, the same case fails in both', async () => {
    const scenarios = ['lost-create-response', 'dropped-webhooks'];
    const lib = await viaLibrary(newKeyOnRetry, scenarios);
    const cli = await viaCommand(newKeyOnRetry, scenarios);
    expect(verdicts(lib.r.report.cases)).toEqual(['lost-create-response: fail', 'dropped-webhooks: pass']);
    expect(lib.thrown).toMatch(/lost-create-response: I2/);
    expect(cli.exitCode).toBe(1);
    expect(cli.output).toMatch(/lost-create-response\s+FAIL/);
    expect(cli.output).toMatch(/FAILED: 1 pass, 1 fail of 2 cases/);
  }, 120_000);

  it('report merge totals the shards by the same rule: a shard alone may not certify, the whole does', async () => {
    const shards = async (scenarios: string[]) => {
      const plan = inProcessPlan(deaf, { scenarios, runs: 0, seed: 5 });
      return Promise.all([1, 2].map(async (index) => (await certify({ ...plan, shard: { index, count: 2 } })).report));
    };
    const mixed = await shards(['dropped-webhooks', 'out-of-order-webhooks']);
    expect(mixed.map((p) => [verdicts(p.cases), p.passed])).toEqual([
      [['dropped-webhooks: pass'], true],
      [['out-of-order-webhooks: not_exercised'], false],
    ]);
    expect(mergeReports(mixed).passed).toBe(true);
    const idle = mergeReports(await shards(['duplicate-webhook', 'out-of-order-webhooks']));
    expect(verdicts(idle.cases)).toEqual(['duplicate-webhook: not_exercised', 'out-of-order-webhooks: not_exercised']);
    expect(idle.passed).toBe(false);
  }, 120_000);
});
