/**
 * verify-provider driven by a pilot plan against a provider with no control API: a small independent Hono task
 * provider written from tasks-api.md (test/verify-provider/minimal-task-provider.ts), not the fake provider with its
 * control switched off, which would still carry jobproof's own behaviour (drafting, journal, error shapes) and so
 * prove nothing about a provider written by someone else. Spawns `dist/cli/main.js` (run `npm run build` first).
 */
import { serve, type ServerType } from '@hono/node-server';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalTaskProvider, type Who } from './minimal-task-provider.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'jobproof-plan-'));
const TOKENS: Record<string, Who> = {
  'sub-1': { tenant: 'acme', subject: 'agent-1', roles: ['submitter'] },
  'sub-2': { tenant: 'acme', subject: 'agent-2', roles: ['submitter'] },
  'rev-1': { tenant: 'acme', subject: 'reviewer-1', roles: ['reviewer'] },
  'lead-1': { tenant: 'acme', subject: 'lead-1', roles: ['submitter', 'reviewer'] },
  'glx-1': { tenant: 'globex', subject: 'agent-9', roles: ['submitter'] },
};
let server: ServerType;
let url = '';

beforeAll(async () => {
  const p = minimalTaskProvider(TOKENS, 'admin-secret');
  p.seed('acme', 'pilot-note-1', { title: 'pilot', status: 'draft' });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: p.app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      url = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function plan(extra: Record<string, unknown> = {}): string {
  const file = join(dir, `plan-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      url,
      apis: ['tasks'],
      tokens: [
        { token: 'sub-1', tenant: 'acme', subject: 'agent-1', roles: ['submitter'] },
        { token: 'sub-2', tenant: 'acme', subject: 'agent-2', roles: ['submitter'] },
        { token_env: 'PILOT_REVIEWER_TOKEN', tenant: 'acme', subject: 'reviewer-1', roles: ['reviewer'] },
        { token: 'lead-1', tenant: 'acme', subject: 'lead-1', roles: ['submitter', 'reviewer'] },
        { token: 'glx-1', tenant: 'globex', subject: 'agent-9', roles: ['submitter'] },
      ],
      object: { ref: 'pilot-note-1', input: { changes: { status: 'reviewed' } } },
      change_object: { url: `${url}/admin/objects/{ref}/touch`, method: 'POST', headers: { authorization: 'Bearer admin-secret' } },
      timeout_ms: 5000,
      ...extra,
    }),
  );
  return file;
}

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'verify-provider', ...args], { env: { ...process.env, PILOT_REVIEWER_TOKEN: 'rev-1' } });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('verify-provider --plan against a provider without a control API', () => {
  it('passes: every task check runs from the plan, the fault checks are not run with the reason, each shows expected/got and the audit', {
    timeout: 60_000,
  }, async () => {
    const json = join(dir, 'report.json');
    const md = join(dir, 'report.md');
    const r = await run(['--plan', plan(), '--report', `json=${json},md=${md}`]);
    expect(r.code, r.out + r.err).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    const by = Object.fromEntries(report.checks.map((c: any) => [c.name, c]));
    expect(report.control).toBe(false);
    const ran = [
      'task.create',
      'task.create-replay',
      'task.key-conflict',
      'task.stale-source-version',
      'task.tenant-isolated',
      'task.review-foreign-tenant',
      'task.review-by-submitter',
      'task.review-by-initiator',
      'task.review-stale-proposal',
      'task.apply-without-approval',
      'task.apply-retry',
    ];
    for (const n of ran) expect(by[n].status, `${n}: ${by[n].explanation}\n${by[n].evidence.join('\n')}`).toBe('passed');
    for (const n of ['task.lost-create-answer', 'task.lost-apply-answer']) {
      expect(by[n].status).toBe('not_run');
      expect(by[n].explanation).toMatch(/needs the control API/);
    }
    for (const n of ['create.shape', 'job.final-state-stable', 'problems.rfc9457'])
      expect(by[n]).toMatchObject({ status: 'not_run', explanation: 'the plan leaves out the jobs API' });
    expect(by['task.stale-source-version']).toMatchObject({
      expected: '409 stale_object_version or 409 approval_required',
      got: '409 stale_object_version',
    });
    expect(by['task.review-by-initiator']).toMatchObject({ expected: '403 self_review_forbidden', got: '403 self_review_forbidden' });
    expect(by['task.review-by-submitter']).toMatchObject({ expected: '403 forbidden_role', got: '403 forbidden_role' });
    // A repeated approved apply: one logical operation in the audit, and the report shows the audit record.
    expect(by['task.apply-retry'].evidence.join('\n')).toMatch(
      /recognised by the apply key: 'application': 1 event\(s\) for 3 apply requests/,
    );
    expect(by['task.apply-retry'].audit.filter((l: string) => / application /.test(l))).toHaveLength(1);
    expect(by['task.apply-retry'].audit.join('\n')).toMatch(/apply_requested by agent-1 idempotency_key=/);
    expect(readFileSync(md, 'utf8')).toContain('## Audit records');
    expect(r.out).toMatch(
      /task\.stale-source-version +pass .*\[expected 409 stale_object_version or 409 approval_required, got 409 stale_object_version\]/,
    );
  });

  it('a plan may narrow the expected answers, never widen them; tokens come from the plan or flags, not both', {
    timeout: 30_000,
  }, async () => {
    const wide = await run(['--plan', plan({ expect: { 'task.stale-source-version': ['409 invalid_state'] } })]);
    expect(wide.code).toBe(2);
    expect(wide.err).toContain("'409 invalid_state' is not an answer the spec allows");
    const both = await run(['--plan', plan(), '--token', 'sub-1']);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/in the plan or as flags, not both/);
    const narrow = await run([
      '--plan',
      plan({ expect: { 'task.stale-source-version': ['409 approval_required'] } }),
      '--only',
      'task.stale-source-version',
    ]);
    expect(narrow.code).toBe(1);
    expect(narrow.out).toMatch(/expected 409 approval_required, got 409 stale_object_version/);
  });

  it('change_object as a command: JOBPROOF_OBJECT_REF is set; a command that fails or changes nothing leaves the check not run, with the reason', {
    timeout: 30_000,
  }, async () => {
    const touch = `curl -fsS -X POST "${url}/admin/objects/$JOBPROOF_OBJECT_REF/touch" -H 'Authorization: Bearer admin-secret' >/dev/null`;
    const ok = await run([
      '--plan',
      plan({ change_object: { command: touch } }),
      '--only',
      'task.review-stale-proposal,task.stale-source-version',
    ]);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/2 passed, 0 failed, 0 not run/);
    const broken = await run([
      '--plan',
      plan({ change_object: { command: 'echo no admin here >&2; exit 3' } }),
      '--only',
      'task.review-stale-proposal',
    ]);
    expect(broken.code).toBe(0);
    expect(broken.out).toMatch(/task\.review-stale-proposal +not run +the plan's change_object command exited 3: no admin here/);
    const idle = await run(['--plan', plan({ change_object: { command: 'true' } }), '--only', 'task.review-stale-proposal']);
    expect(idle.out).toMatch(/not run +the plan's change_object did not change pilot-note-1/);
  });
});
