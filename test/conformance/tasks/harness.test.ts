import { describe, expect, it } from 'vitest';
import { createProvider, IN_PROCESS_BASE } from '../../../src/fake-provider/index.js';
import { TaskHarness } from '../../../src/conformance/tasks/harness.js';
import { TASK_CLIENT } from '../../../src/conformance/tasks/judge-run.js';
import { taskScenario } from '../../../src/scenarios/index.js';

describe('task harness: revoked-approval leaves the client no race to win', () => {
  it('an apply sent between the approval and the revoke is checked after the revoke: 409 approval_required, the revoke 200', {
    timeout: 30_000,
  }, async () => {
    const sc = { ...taskScenario('revoked-approval'), task_behavior: { draft_ms: 0 } } as ReturnType<typeof taskScenario>;
    const provider = createProvider();
    let taskId: string | undefined;
    try {
      const harness = new TaskHarness(
        provider,
        () => Date.now(),
        () => taskId,
        async () => undefined,
      );
      await harness.setUp(sc);
      const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
        provider.fetch(`${IN_PROCESS_BASE}${path}`, {
          method,
          headers: { authorization: `Bearer ${TASK_CLIENT.token}`, 'content-type': 'application/json', ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const created = await call(
        'POST',
        '/v1/tasks',
        { 'idempotency-key': 'tcreate-harness-1' },
        {
          type: 'propose_update',
          object_ref: 'invoice-1',
          object_version: harness.versions.get('invoice-1'),
          input: sc.ops[0]!.input,
        },
      );
      expect(created.status).toBe(202);
      taskId = ((await created.json()) as { task_id: string }).task_id;
      expect(((await (await call('GET', `/v1/tasks/${taskId}`)).json()) as { state: string }).state).toBe('awaiting_review');

      const [approve, revoke] = sc.steps.map((s) => s.action);
      await harness.step(approve!);
      // The client saw the approval and applies at once; the harness's revoke comes right after.
      const applying = call('POST', `/v1/tasks/${taskId}/apply`, { 'idempotency-key': 'tapply-harness-1' }, {});
      // Revoke once the provider has the apply (its key reserved, or already used if nothing held it).
      const scope = {
        tenant: TASK_CLIENT.tenant,
        subject: TASK_CLIENT.subject,
        scope: 'POST /v1/tasks/{task_id}/apply',
        key: 'tapply-harness-1',
      };
      while (!provider.core.idempotency.lookup(scope, provider.core.clock.now())) await new Promise((r) => setTimeout(r, 5));
      await harness.step(revoke!);
      const applied = await applying;
      expect(applied.status).toBe(409);
      expect(((await applied.json()) as { code: string }).code).toBe('approval_required');
      expect(harness.problems).toEqual([]);
      expect(harness.notExercised).toEqual([]);
      expect(harness.events.filter((e) => e.kind === 'review').map((e) => [e.decision, e.status])).toEqual([
        ['approve', 200],
        ['revoke', 200],
      ]);
    } finally {
      await provider.idle();
      provider.close();
    }
  });
});
