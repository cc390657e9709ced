import { afterAll, describe, expect, it } from 'vitest';
import { verifyProvider, type VerifyReport } from '../../src/verify-provider/index.js';
import { BROKEN } from './broken-providers.js';
import { serveProvider, type Served } from './helpers.js';

const served: Served[] = [];
afterAll(async () => {
  await Promise.all(served.map((s) => s.stop()));
});

describe('verify-provider catches deliberately broken providers, each by the right named check', () => {
  // All broken providers are checked at once (each on its own port): the checks mostly wait on the network.
  const runs = new Map<string, Promise<VerifyReport>>();
  const runFor = (name: string): Promise<VerifyReport> => {
    if (!runs.has(name)) {
      const b = BROKEN.find((x) => x.name === name)!;
      runs.set(
        name,
        serveProvider(b.wrap).then((s) => {
          served.push(s);
          return verifyProvider(s.opts);
        }),
      );
    }
    return runs.get(name)!;
  };
  it('starts them all', () => {
    expect(BROKEN.length).toBeGreaterThanOrEqual(8);
    for (const b of BROKEN) void runFor(b.name);
  });
  for (const b of BROKEN) {
    it(`${b.name} → fails ${b.check}`, async () => {
      const report = await runFor(b.name);
      const target = report.checks.find((c) => c.name === b.check)!;
      expect(target.status, `${target.explanation}\n${target.evidence.join('\n')}`).toBe('failed');
      expect(report.passed).toBe(false);
      // One mistake, caught where it belongs: no unrelated check breaks, and nothing is left not run.
      const others = report.checks
        .filter((c) => c.status === 'failed' && c.name !== b.check && !(b.alsoFails ?? []).includes(c.name))
        .map((c) => `${c.name}: ${c.explanation}`);
      expect(others).toEqual([]);
      expect(report.checks.filter((c) => c.status === 'not_run')).toEqual([]);
    }, 60_000);
  }
});
