/**
 * A control API that answers but refuses a fault plan (a staging double that allows objects and roles, not faults):
 * the checks that need fault injection are not run, with the reason, instead of failing.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyProvider, type VerifyReport } from '../../src/verify-provider/index.js';
import { serveProvider, type Served } from './helpers.js';

let s: Served;
let report: VerifyReport;
beforeAll(async () => {
  s = await serveProvider((p) => {
    const app = new Hono();
    app.put('/_control/faults', (c) =>
      c.body(
        JSON.stringify({
          type: 'https://jobproof.dev/problems/forbidden',
          title: 'Forbidden',
          status: 403,
          code: 'forbidden',
          detail: 'faults are off here',
        }),
        403,
        { 'content-type': 'application/problem+json' },
      ),
    );
    app.all('*', (c) => p.app.fetch(c.req.raw));
    return app;
  });
  report = await verifyProvider({
    ...s.opts,
    only: ['create.in-flight-409', 'task.lost-create-answer', 'task.lost-apply-answer', 'task.create'],
  });
}, 60_000);
afterAll(async () => s.stop());

describe('verify-provider when the control API refuses a fault plan', () => {
  it('fault checks are not_run with the refusal; the others pass; the run passes', () => {
    const by = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    for (const n of ['create.in-flight-409', 'task.lost-create-answer', 'task.lost-apply-answer']) {
      expect(by[n]!.status, `${n}: ${by[n]!.explanation}`).toBe('not_run');
      expect(by[n]!.explanation).toMatch(/the control API refused the fault plan \(403 forbidden/);
    }
    expect(by['task.create']!.status).toBe('passed');
    expect(report.passed).toBe(true);
  });
});
