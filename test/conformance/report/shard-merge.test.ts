import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCatalog, type ClientUnderTest } from '../../../src/conformance/catalog-run.js';
import { propertyRun } from '../../../src/conformance/property-run.js';
import { scenarioCase } from '../../../src/conformance/pipeline/cases.js';
import { buildReport, schedulesCase } from '../../../src/conformance/report/build.js';
import { mergeReports, MergeError, parseReport } from '../../../src/conformance/report/merge.js';
import type { CertificationReport, ReportCase } from '../../../src/conformance/report/schema.js';
import { toJson } from '../../../src/conformance/report/write-reports.js';
import { inShard, parseShard, shardItems, type Shard } from '../../../src/conformance/shard.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { getScenario } from '../../../src/scenarios/index.js';

const client: ClientUnderTest = { kind: 'in-process', factory: createReferenceClient };
const NAMES = ['lost-create-response', 'rate-limited', 'flapping-5xx', 'stale-lease', 'cancel-race', 'duplicate-webhook', 'never-finishes'];
const SEED = 4242;
const RUNS = 8;

/** What `certify --in-process [--shard i/n] --report json=…` does, without the process: run, report, JSON. */
async function certify(shard: Shard | undefined): Promise<{ report: CertificationReport; schedules: string[] }> {
  const picked = shardItems(
    NAMES.map((n) => getScenario(n)),
    shard,
  );
  const runs = await runCatalog(
    client,
    picked.map((x) => x.item),
    { seed: SEED },
  );
  const schedules: string[] = [];
  const property = await propertyRun(client, {
    runs: RUNS,
    seed: SEED,
    shard,
    onRun: (_n, _r, s) => schedules.push(JSON.stringify(s.actions)),
  });
  const cases: ReportCase[] = [...runs.map((r, k) => ({ ...scenarioCase(r), position: picked[k]!.position })), schedulesCase(property)];
  const report = buildReport(
    {
      version: 't',
      client: 'ref',
      runner: 'in-process',
      seed: SEED,
      startedAt: new Date().toISOString(),
      wallMs: 1,
      webhooks: true,
      timeScale: { factor: 1, source: 'virtual', client_start_ms: null, provider_round_trip_ms: null },
    },
    cases,
  );
  if (shard) report.shard = { index: shard.index, count: shard.count };
  // Through the JSON file and back, as `report merge` reads it.
  return { report: parseReport(JSON.parse(toJson(report)), 'test'), schedules };
}

const verdicts = (r: CertificationReport) => ({
  cases: r.cases.map((c) => [c.kind, c.kind === 'schedules' ? 'schedules' : c.name, c.verdict, c.invariants]),
  invariants: r.invariants,
  counts: r.counts,
  passed: r.passed,
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
    const merged = mergeReports([s2.report, s1.report]);
    expect(merged.cases.filter((c) => c.kind === 'scenario').map((c) => c.name)).toEqual(NAMES);
    expect(verdicts(merged)).toEqual(verdicts(whole.report));
    expect(merged.cases.find((c) => c.kind === 'schedules')!.schedules).toMatchObject({ planned: RUNS, executed: RUNS });
  }, 120_000);

  it('refuses parts that do not make one certificate', () => {
    const part = (index: number, count: number, over: Partial<CertificationReport> = {}): CertificationReport => ({
      ...buildReport(
        {
          version: 't',
          client: 'ref',
          runner: 'in-process',
          seed: 1,
          startedAt: 'x',
          wallMs: 1,
          webhooks: true,
          timeScale: { factor: 1, source: 'virtual', client_start_ms: null, provider_round_trip_ms: null },
        },
        [],
      ),
      shard: { index, count },
      ...over,
    });
    expect(() => mergeReports([part(1, 3), part(2, 3)])).toThrow(/3\/3 missing/);
    expect(() => mergeReports([part(1, 2), part(1, 2)])).toThrow(/twice/);
    expect(() => mergeReports([part(1, 2), part(2, 2, { seed: 2 })])).toThrow(MergeError);
    expect(() => mergeReports([part(1, 2), part(2, 3)])).toThrow(/one of 2/);
    expect(() => mergeReports([part(1, 2), { ...part(2, 2), shard: undefined }])).toThrow(/not a shard/);
  });

  it('jobproof report merge: exit 0 with a certificate, 2 for an incomplete set or a file that is not a report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'jp-merge-'));
    try {
      const part = (index: number) => ({
        ...buildReport(
          {
            version: 't',
            client: 'ref',
            runner: 'in-process',
            seed: 1,
            startedAt: 'x',
            wallMs: 1,
            webhooks: true,
            timeScale: { factor: 1, source: 'virtual', client_start_ms: null, provider_round_trip_ms: null },
          },
          [
            {
              kind: 'scenario',
              name: `s${index}`,
              verdict: 'pass',
              reason: null,
              failures: [],
              invariants: { I1: 'held' },
              time_bound_hit: false,
              run_ms: 1,
              wall_ms: 1,
              diagnostics: [],
              schedules: null,
              position: index - 1,
            },
          ],
        ),
        shard: { index, count: 2 },
      });
      writeFileSync(join(dir, '1.json'), JSON.stringify(part(1)));
      writeFileSync(join(dir, '2.json'), JSON.stringify(part(2)));
      writeFileSync(join(dir, 'bad.json'), '{"hello": 1}');
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, [join(import.meta.dirname, '..', '..', '..', 'dist', 'cli', 'main.js'), 'report', 'merge', ...args], {
          encoding: 'utf8',
          cwd: dir,
        });
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
