/**
 * Task clients as real processes (client-protocol.md, task verbs): the reference client's CLI and
 * examples/python-client pass the task scenarios; a broken Python task client (applies without approval) fails with
 * T2. Times are scaled by 0.5 so the file runs in seconds; `certify --tasks` runs them at scale 1.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referenceCommand } from '../../../src/cli/reference-command.js';
import { callClient } from '../../../src/conformance/runner/process/spawn-client.js';
import { taskCase } from '../../../src/conformance/pipeline/task-case.js';
import { runTaskScenarioProcess, taskScenario, TASK_SCENARIOS, type TaskScenarioRun } from '../../../src/conformance/tasks/index.js';
import { TaskRecordSchema } from '../../../src/contract/task-client-protocol.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const python = (() => {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
})();
const PY = python ? `${q(python)} ${q(join(REPO, 'examples/python-client/client.py'))}` : '';
const PY_KEY_IN_MEMORY = python ? `${q(python)} ${q(join(REPO, 'test/conformance/tasks/fixtures/py_apply_key_in_memory.py'))}` : '';
const PY_BROKEN = python ? `${q(python)} ${q(join(REPO, 'test/conformance/tasks/fixtures/py_apply_without_approval.py'))}` : '';
// As certify runs it by default: the bundle the build writes (dist/cli/client.cjs).
const REFERENCE = referenceCommand(join(REPO, 'dist', 'cli'));
const SCALE = 0.5;

/** The run as the certification report shows it (its verdict in the common vocabulary, cells per invariant). */
const caseOf = (run: TaskScenarioRun) => taskCase(run, 0);

function why(run: TaskScenarioRun): string {
  const k = caseOf(run);
  return JSON.stringify({ verdict: k.verdict, reason: k.reason, failures: k.failures, diagnostics: k.diagnostics }, null, 1);
}

function expectPassed(run: TaskScenarioRun): void {
  const k = caseOf(run);
  expect(k.verdict, why(run)).not.toBe('fail');
  expect(run.finished).toBe(true);
  for (const id of ['T1', 'T4'] as const) expect(k.invariants[id]).toBe('held');
}

describe('task verbs: submit, show and their exit codes', () => {
  for (const [name, cmd] of [
    ['reference', REFERENCE],
    ['python', PY],
  ] as const) {
    it.skipIf(name === 'python' && !python)(
      `${name}: same request again 0, changed 3, unknown 2, bad input 2; show prints a task record with its create key`,
      { timeout: 30_000 },
      async () => {
        const state = mkdtempSync(join(tmpdir(), 'jobproof-taskverbs-'));
        try {
          const env = { ...process.env, JOBPROOF_STATE: state, JOBPROOF_PROVIDER_URL: 'http://127.0.0.1:9', JOBPROOF_TOKEN: 't' };
          const req = { task_op_id: 'op-1', object_ref: 'invoice-1', object_version: 1, input: { changes: { a: 1 } }, deadline_ms: 60_000 };
          expect((await callClient(cmd, ['task', 'submit'], env, JSON.stringify(req))).exit).toBe(0);
          const first = await callClient(cmd, ['task', 'show', 'op-1'], env, null);
          expect(first.exit, first.stderr).toBe(0);
          const rec = TaskRecordSchema.parse(JSON.parse(first.stdout));
          expect(rec).toMatchObject({ task_op_id: 'op-1', state: 'create_pending', task_id: null, apply_key: null, object_version: 1 });
          expect(rec.history.map((h) => [h.from, h.to])).toEqual([[null, 'create_pending']]);
          expect((await callClient(cmd, ['task', 'submit'], env, JSON.stringify(req))).exit).toBe(0);
          const again = TaskRecordSchema.parse(JSON.parse((await callClient(cmd, ['task', 'show', 'op-1'], env, null)).stdout));
          expect(again.create_key).toBe(rec.create_key);
          const changed = await callClient(cmd, ['task', 'submit'], env, JSON.stringify({ ...req, input: { changes: { a: 2 } } }));
          expect(changed.exit).toBe(3);
          expect(changed.stderr).toMatch(/different request/);
          expect((await callClient(cmd, ['task', 'show', 'nope'], env, null)).exit).toBe(2);
          expect((await callClient(cmd, ['task', 'submit'], env, '{"task_op_id": 1}')).exit).toBe(2);
        } finally {
          rmSync(state, { recursive: true, force: true });
        }
      },
    );
  }
});

describe('the reference task client through its CLI', () => {
  it('passes apply-lost-answer: one apply key, replayed; the object changed once', { timeout: 60_000 }, async () => {
    const run = await runTaskScenarioProcess(taskScenario('apply-lost-answer'), REFERENCE, { timeScale: SCALE });
    expectPassed(run);
    const applies = run.evidence.journal.filter((e) => e.route === 'apply');
    expect(applies.map((e) => e.effect)).toEqual(['applied', 'replayed']);
    expect(new Set(applies.map((e) => e.idempotency_key))).toEqual(new Set([run.reports[0]!.apply_key]));
    expect(run.evidence.provider.objects[0]!.version).toBe(2);
  });
});

describe.skipIf(!python)('examples/python-client task support', () => {
  const names = TASK_SCENARIOS.map((s) => s.name).filter((n) => n !== 'no-approval-yet');
  // A shorter wait for the reviewer than the catalog's 45 s; the same shape.
  const shortWait = {
    ...taskScenario('no-approval-yet'),
    steps: [
      {
        at_ms: 6_000,
        action: {
          type: 'review' as const,
          decision: 'approve' as const,
          op: 'op-1',
          token: 'reviewer-token',
          proposal: 'current' as const,
        },
      },
    ],
  };
  // Every run starts at once: they mostly wait on timers and on each other's processes.
  const runs = new Map<string, Promise<TaskScenarioRun>>();
  const start = (label: string, go: () => Promise<TaskScenarioRun>) => {
    const p = go();
    p.catch(() => undefined);
    runs.set(label, p);
  };
  if (python) {
    for (const n of names) start(n, () => runTaskScenarioProcess(taskScenario(n), PY, { timeScale: SCALE }));
    start('short-wait', () => runTaskScenarioProcess(shortWait, PY, { timeScale: SCALE }));
    start('broken-no-approval', () => runTaskScenarioProcess(shortWait, PY_BROKEN, { timeScale: SCALE }));
    start('broken-key-in-memory', () =>
      runTaskScenarioProcess(taskScenario('apply-crash-restart'), PY_KEY_IN_MEMORY, { timeScale: SCALE }),
    );
  }

  for (const n of names) {
    it(`passes ${n}`, { timeout: 120_000 }, async () => {
      const run = await runs.get(n)!;
      expectPassed(run);
      if (n.startsWith('redraft')) expect(caseOf(run).invariants.T3).toBe('held');
      if (n === 'apply-lost-answer')
        expect(run.evidence.journal.filter((e) => e.route === 'apply').map((e) => e.effect)).toEqual(['applied', 'replayed']);
      if (n === 'apply-crash-restart') {
        // The worker was SIGKILLed while its apply was held; the next one replayed the recorded key.
        expect(run.evidence.harness.some((h) => h.kind === 'restart_worker')).toBe(true);
        expect(new Set(run.evidence.journal.filter((e) => e.route === 'apply').map((e) => e.idempotency_key)).size).toBe(1);
        expect(run.evidence.provider.objects[0]!.version).toBe(2);
      }
    });
  }

  it('no-approval-yet (a shorter wait): no apply before the approval', { timeout: 120_000 }, async () => {
    const run = await runs.get('short-wait')!;
    expectPassed(run);
    const approval = run.evidence.journal.find((e) => e.route === 'review')!;
    const applies = run.evidence.journal.filter((e) => e.route === 'apply');
    expect(applies.length).toBe(1);
    expect(applies[0]!.seq).toBeGreaterThan(approval.seq);
  });

  it('a broken Python task client that applies without approval fails, with T2', { timeout: 120_000 }, async () => {
    const run = await runs.get('broken-no-approval')!;
    expect(caseOf(run).verdict).toBe('fail');
    expect(run.verdict.failed).toContain('T2');
    expect(run.verdict.results.T2.violations[0]).toMatch(/apply \(seq \d+\) sent with no approval/);
  });

  it('a Python task client that keeps its apply key in memory only fails apply-crash-restart (T5)', { timeout: 120_000 }, async () => {
    const run = await runs.get('broken-key-in-memory')!;
    expect(caseOf(run).verdict, why(run)).toBe('fail');
    expect(run.verdict.failed).toContain('T5');
  });
});
