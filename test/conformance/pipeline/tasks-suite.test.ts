/**
 * The tasks suite is a suite of the one pipeline: the library certifies a task client in-process
 * (`certifyInProcess(null, { tasks })`) and `certify --in-process --tasks` does the same through the command, with
 * the same cases, the same verdict vocabulary (T1–T5 held, broken or not_applicable) and the same pass rule.
 */
import { Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { registerCertify } from '../../../src/cli/certify-command.js';
import { certifyInProcess } from '../../../src/conformance/testing.js';
import { TASK_INVARIANT_IDS } from '../../../src/contract/invariants.js';
import type { InProcessTaskClientFactory } from '../../../src/contract/task-client-protocol.js';
import { createInMemoryReferenceClient } from '../../../src/reference-client/index.js';
import { createTaskClient } from '../../../src/reference-client/tasks/index.js';
import { TASK_SCENARIOS } from '../../../src/scenarios/index.js';

const tasks: InProcessTaskClientFactory = (env) => createTaskClient({ ...env, workerId: 'task-worker-1' });

describe('the tasks suite', () => {
  it('the library and certify --tasks give the same task cases, in the job vocabulary', async () => {
    const lib = await certifyInProcess(null, { tasks });
    expect(lib.summary).toMatch(/^certified/);
    expect(lib.ok).toBe(true);
    expect(lib.tasks).toHaveLength(TASK_SCENARIOS.length);
    const cells = new Set(lib.report.cases.flatMap((c) => Object.values(c.invariants)));
    for (const cell of cells) expect(['held', 'broken', 'not_applicable']).toContain(cell);
    expect(lib.report.invariants.map((i) => i.id)).toEqual([...TASK_INVARIANT_IDS]);

    const program = new Command().exitOverride();
    registerCertify(program, 'test', { inProcess: async () => ({ jobs: createInMemoryReferenceClient, tasks, label: 'under test' }) });
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
      lines.push(String(s));
      return true;
    });
    let exitCode: typeof process.exitCode;
    try {
      await program.parseAsync(['certify', '--in-process', '--tasks', '--scenarios', 'none', '--runs', '0'], { from: 'user' });
      exitCode = process.exitCode;
    } finally {
      write.mockRestore();
      process.exitCode = undefined;
    }
    const out = lines.join('');
    expect(exitCode, out).toBe(0);
    for (const c of lib.report.cases)
      expect(out).toMatch(new RegExp(`${c.name}\\s+${c.verdict === 'pass' ? 'pass' : c.verdict.replace('_', ' ')}`));
    expect(out).toMatch(new RegExp(`PASSED: ${lib.report.counts.pass} pass, 0 fail`));
  }, 300_000);
});
