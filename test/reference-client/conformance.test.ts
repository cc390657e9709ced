import { describe, expect, it } from 'vitest';
import { certifyInProcess } from '../../src/conformance/testing.js';
import { createReferenceClient } from '../../src/reference-client/index.js';
import { listScenarios } from '../../src/scenarios/index.js';

/**
 * The reference client against the conformance harness itself: the whole catalog, in-process on a virtual clock.
 * Random schedules only on request (JOBPROOF_CERT_RUNS), since a few schedules still expose judge-side questions
 * (see the report of the reference client).
 */
describe('conformance (in-process)', () => {
  const runs = Number(process.env.JOBPROOF_CERT_RUNS ?? 0);
  it(`passes the catalog${runs ? ` and ${runs} random schedules` : ''}`, async () => {
    const r = await certifyInProcess(createReferenceClient, { runs, seed: Number(process.env.JOBPROOF_SEED ?? 20261129) });
    expect(r.ok, r.summary).toBe(true);
    expect(r.scenarios).toHaveLength(listScenarios().length);
  }, 600_000);
});
