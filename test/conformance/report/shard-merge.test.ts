import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCatalog, type ClientUnderTest } from '../../../src/conformance/catalog-run.js';
import { propertyRun } from '../../../src/conformance/property-run.js';
import { mergeCertifications, MergeError } from '../../../src/conformance/report/merge.js';
import { certificationFromJson } from '../../../src/conformance/report/read-json.js';
import { invariantTotals, passed, runPassed, type Certification } from '../../../src/conformance/report/summary.js';
import { toJson } from '../../../src/conformance/report/write-reports.js';
import { inShard, parseShard, shardItems, type Shard } from '../../../src/conformance/shard.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { getScenario } from '../../../src/scenarios/index.js';

const client: ClientUnderTest = { kind: 'in-process', factory: createReferenceClient };
const NAMES = ['lost-create-response', 'rate-limited', 'flapping-5xx', 'stale-lease', 'cancel-race', 'duplicate-webhook', 'never-finishes'];
const SEED = 4242;
const RUNS = 8;

/** What `certify --in-process --shard i/n --report json=…` does, without the process: run, then write JSON. */
async function certify(shard: Shard | undefined): Promise<{ cert: Certification; schedules: string[] }> {
  const picked = shardItems(NAMES.map((n) => getScenario(n)), shard);
  const scenarios = await runCatalog(client, picked.map((x) => x.item), { seed: SEED });
  const schedules: string[] = [];
  const property = await propertyRun(client, { runs: RUNS, seed: SEED, shard, onRun: (_n, _r, s) => schedules.push(JSON.stringify(s.actions)) });
  const cert: Certification = { version: 't', client: 'ref', runner: 'in-process', seed: SEED, startedAt: new Date().toISOString(), wallMs: 1, scenarios, property };
  if (shard) cert.shard = { ...shard, positions: picked.map((x) => x.position) };
  // Through the JSON report and back, as `report merge` reads it.
  return { cert: certificationFromJson(JSON.parse(toJson(cert)), 'test'), schedules };
}

const verdicts = (c: Certification) => ({
  scenarios: c.scenarios.map((r) => [r.scenario, runPassed(r), r.verdict.invariants.map((i) => `${i.id}:${i.status}`).join(' ')]),
  invariants: invariantTotals(c).map((t) => `${t.id}:${t.status}`),
  property: c.property && { planned: c.property.planned, failed: c.property.failed },
  passed: passed(c),
});

describe('sharded certify', () => {
  it('parses i/n and splits positions round-robin, every position in exactly one shard (property)', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/2', '3/2', '1/0', 'a/b', '1-2', '']) expect(() => parseShard(bad)).toThrow(/i\/n/);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.nat(500), (n, p) => {
        const owners = Array.from({ length: n }, (_, i) => i + 1).filter((index) => inShard(p, { index, count: n }));
        return owners.length === 1;
      }),
    );
  });

  it('--shard 1/2 + --shard 2/2 + report merge gives the same verdicts as one unsharded run', async () => {
    const whole = await certify(undefined);
    const s1 = await certify({ index: 1, count: 2 });
    const s2 = await certify({ index: 2, count: 2 });
    // The shards ran disjoint halves of the same seeded schedules, together all of them, none twice.
    expect(s1.schedules.length + s2.schedules.length).toBe(RUNS);
    expect([...s1.schedules, ...s2.schedules].sort()).toEqual([...whole.schedules].sort());
    const merged = mergeCertifications([s2.cert, s1.cert]);
    expect(merged.scenarios.map((r) => r.scenario)).toEqual(NAMES);
    expect(verdicts(merged)).toEqual(verdicts(whole.cert));
    expect(merged.property!.executed).toBe(RUNS);
  }, 120_000);

  it('refuses parts that do not make one certificate', async () => {
    const base = (index: number, count: number, over: Partial<Certification> = {}): Certification => ({
      version: 't', client: 'ref', runner: 'in-process', seed: 1, startedAt: 'x', wallMs: 1, scenarios: [], shard: { index, count, positions: [] }, ...over,
    });
    expect(() => mergeCertifications([base(1, 3), base(2, 3)])).toThrow(/3\/3 missing/);
    expect(() => mergeCertifications([base(1, 2), base(1, 2)])).toThrow(/twice/);
    expect(() => mergeCertifications([base(1, 2), base(2, 2, { seed: 2 })])).toThrow(MergeError);
    expect(() => mergeCertifications([base(1, 2), base(2, 3)])).toThrow(/of 2/);
  });

  it('jobproof report merge: exit 0 with a certificate, 2 for an incomplete set or a file that is not a report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jp-merge-'));
    try {
      const part = (index: number) => ({ version: 't', client: 'ref', runner: 'in-process', seed: 1, started_at: 'x', wall_ms: 1, shard: { index, count: 2 }, scenarios: [] });
      writeFileSync(join(dir, '1.json'), JSON.stringify(part(1)));
      writeFileSync(join(dir, '2.json'), JSON.stringify(part(2)));
      writeFileSync(join(dir, 'bad.json'), '{"hello": 1}');
      const cli = (...args: string[]) => spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', '..', 'dist', 'cli', 'main.js'), 'report', 'merge', ...args], { encoding: 'utf8', cwd: dir });
      const ok = cli('1.json', '2.json', '--report', 'md=out/c.md');
      expect(ok.status, ok.stderr).toBe(0);
      expect(cli('1.json').status).toBe(2);
      const bad = cli('1.json', 'bad.json');
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('is not a jobproof JSON report');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
