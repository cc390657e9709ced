/**
 * The profile example clients (examples/profile-clients/) as real processes speaking client-protocol.md, on the
 * real client libraries, unmodified, against the fake serving the built-in profiles over loopback: the first create
 * of each run loses its answer and the second operation is cancelled while it runs. A durable client ends with one
 * job per operation (the lost create found again); a naive one on a library that resends the create, or a client
 * that creates again, leaves a second job behind — what certify's I1 names. Until `certify --profile` lands this is
 * the check of the examples; the Node >= 22 libraries are skipped below Node 22 (docs/decisions/028-…).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEntry } from '../../src/contract/index.js';
import { builtin } from '../fake-provider/profiles/helpers.js';
import { BELOW_NODE_22, NODE_22_REASON } from '../fake-provider/profiles/libs/node22.js';
import { startProviderServer, type ProviderServer, waitFor } from '../helpers/provider-server.js';

const file = (f: string) => fileURLToPath(new URL(`../../examples/profile-clients/${f}`, import.meta.url));
/** Bodies shaped as a harness builds them from the profile alone: no model version, no requests, no request_id. */
const INPUTS: Record<string, (tag: string) => unknown> = {
  replicate: (tag) => ({ input: { prompt: 'hi', reference: tag } }),
  'gemini-batch': (tag) => ({ batch: { displayName: tag } }),
  'azure-lro': (tag) => ({ clientReference: tag, account: 'acct_1' }),
  'google-lro': (tag) => ({ account: 'acct_1', reference: tag }),
};

let s: ProviderServer;
beforeAll(async () => {
  s = await startProviderServer({
    profiles: ['replicate', 'gemini-batch', 'azure-lro', 'google-lro'].map(builtin),
    // Long enough that the cancel reaches a running job on a loaded machine (the worker starts as a new process).
    behavior: { default: { duration_ms: 5000, items: 2, cancel_ms: 100 } },
  });
});
afterAll(() => s?.stop());

function client(script: string, profile: string, state: string) {
  const env = {
    ...process.env,
    JOBPROOF_PROVIDER_URL: s.url,
    JOBPROOF_TOKEN: 'dev-token',
    JOBPROOF_STATE: state,
    JOBPROOF_DIALECT: profile,
    JOBPROOF_WORKER_ID: 'worker-1',
  };
  const run = (args: string[], stdin?: unknown) =>
    new Promise<string>((resolve, reject) => {
      const c = execFile(process.execPath, [file(script), ...args], { env }, (err, out, errOut) =>
        err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
      );
      c.stdin!.end(stdin === undefined ? '' : JSON.stringify(stdin));
    });
  const show = async (id: string) =>
    JSON.parse(await run(['show', id])) as { state: string; remote_job_id: string | null; idempotency_key: string | null; result: unknown };
  return { env, run, show };
}

async function cycle(script: string, profile: string, tag: string) {
  const state = mkdtempSync(join(tmpdir(), 'jp-profile-client-'));
  const c = client(script, profile, state);
  const mark = s.provider.journal.lastSeq();
  s.provider.control.setFaults({ seed: 1, rules: [{ on: 'create', nth: 1, fault: { type: 'lose_response', mode: 'reset' } }] });
  try {
    for (const n of [1, 2])
      await c.run(['submit'], {
        operation_id: `op_${n}`,
        kind: 'report',
        input: INPUTS[profile]!(`${tag}-${n}`),
        create_deadline_ms: 15_000,
        result_deadline_ms: 30_000,
      });
    const worker = spawn(process.execPath, [file(script), 'work'], { env: c.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    worker.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => worker.on('exit', (code) => r(code)));
    await waitFor(async () => (await c.show('op_2')).state === 'observing', 20_000, 100);
    await c.run(['cancel', 'op_2'], { actor: 'test', reason: 'no longer needed', cancel_deadline_ms: 10_000 });
    expect(await exited, stderr).toBe(0);
    const creates = s.provider.journal
      .since(mark)
      .filter((e): e is RequestEntry => e.type === 'request' && e.route === 'create' && e.dialect === profile && e.effect === 'created');
    return { op1: await c.show('op_1'), op2: await c.show('op_2'), jobs: new Set(creates.map((e) => e.job_id)) };
  } finally {
    s.provider.control.clearFaults();
  }
}

const CASES = [
  ['replicate', 'replicate', false],
  ['genai', 'gemini-batch', true],
  ['azure', 'azure-lro', true],
  ['gax', 'google-lro', true],
] as const;

describe.each(CASES)('examples/profile-clients/*-%s.mjs against %s', (lib, profile, needs22) => {
  const skip = needs22 && BELOW_NODE_22;
  it.skipIf(skip)(
    `durable-${lib}.mjs: one job per operation after a lost create, cancel confirmed, results checked${skip ? ` (${NODE_22_REASON})` : ''}`,
    { timeout: 90_000 },
    async () => {
      const r = await cycle(`durable-${lib}.mjs`, profile, `d-${lib}`);
      expect(r.op1.state).toBe('succeeded');
      expect(r.op2.state).toBe('cancelled');
      expect(r.jobs.size).toBe(2);
      expect(r.jobs).toContain(r.op1.remote_job_id);
      expect(r.op1.idempotency_key === null).toBe(builtin(profile).idempotency.source === 'none');
    },
  );

  it.skipIf(skip)(
    `naive-${lib}.mjs runs the cycle on the library's defaults${skip ? ` (${NODE_22_REASON})` : ''}`,
    { timeout: 90_000 },
    async () => {
      const r = await cycle(`naive-${lib}.mjs`, profile, `n-${lib}`);
      expect(r.op1.state).toBe('succeeded');
      expect(r.op2.state).toBe('cancelled');
      // The lost create left a second job behind: resent by the library (replicate, azure) or by the loop (genai, gax).
      expect(r.jobs.size).toBe(3);
    },
  );
});
