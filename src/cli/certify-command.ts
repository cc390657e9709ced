import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { runCatalog, type ClientUnderTest } from '../conformance/catalog-run.js';
import { propertyRun } from '../conformance/property-run.js';
import { failureLines, invariantTotals, passed, runPassed, type Certification } from '../conformance/report/summary.js';
import { parseReportSpec, writeReports } from '../conformance/report/write-reports.js';
import type { ScenarioRun } from '../conformance/runner/run-scenario.js';
import { parseShard, shardItems, type Shard } from '../conformance/shard.js';
import { catalog, getScenario, parseScenario, scaleScenarioTime, type Scenario } from '../scenarios/index.js';
import { CliError, readJsonFile } from './read-json-file.js';

interface CertifyFlags {
  client?: string;
  inProcess?: boolean;
  scenarios: string;
  scenarioFile?: string;
  runs?: string;
  seed?: string;
  path?: string;
  webhooks?: boolean;
  report?: string;
  parallel?: string;
  minimalOut?: string;
  timeScale?: string;
  tasks?: boolean;
  shard?: string;
}

const referenceCommand = () => `'${process.execPath}' '${fileURLToPath(new URL('./main.js', import.meta.url))}' client`;

function pickScenarios(flags: CertifyFlags): Scenario[] {
  let list: Scenario[];
  if (flags.scenarioFile) list = [parseScenario(readJsonFile(flags.scenarioFile, 'scenario'))];
  else if (flags.scenarios === 'all') list = [...catalog];
  else if (flags.scenarios === 'none') list = [];
  else {
    list = flags.scenarios.split(',').map((n) => {
      try {
        return getScenario(n.trim());
      } catch (err) {
        throw new CliError((err as Error).message);
      }
    });
  }
  // Without --webhooks the client has said it does not listen: webhook scenarios run on polling alone.
  return list.map((s) => ({ ...s, webhooks: s.webhooks && !!flags.webhooks }));
}

function int(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} must be a whole number ≥ 0, got '${v}'`);
  return n;
}

function progressLine(r: ScenarioRun, i: number, total: number): string {
  const ok = runPassed(r);
  const broken = r.verdict.invariants.filter((x) => x.status === 'broken').map((x) => x.id);
  const head = `[${String(i).padStart(String(total).length)}/${total}] ${r.scenario.padEnd(24)} ${ok ? 'pass' : 'FAIL'}`;
  return `${head}  ${(r.runMs / 1000).toFixed(1)} s run, ${(r.wallMs / 1000).toFixed(1)} s wall${broken.length ? `  broken: ${broken.join(' ')}` : ''}${r.timedOut ? '  (time bound hit)' : ''}${r.vacuous ? '  (nothing tested)' : ''}`;
}

export function registerCertify(program: Command, version: string): void {
  program
    .command('certify')
    .description('judge a client against the fault catalog and random fault schedules; exit 0 only when every invariant held')
    .option('--client <command>', 'the client command (client-protocol.md); default: the reference client')
    .option('--in-process', 'certify the reference client in-process on a virtual clock (fast; no --client)')
    .option('--scenarios <list>', "'all', 'none', or names joined by commas", 'all')
    .option('--scenario-file <file>', 'run one scenario from a JSON file (e.g. a minimal failure written earlier)')
    .option('--runs <n>', 'random fault schedules after the catalog (default: 0 for processes, 200 in-process)')
    .option('--seed <s>', 'seed of the random schedules (printed on every run; reuse it to replay)')
    .option('--path <p>', 'fast-check replay path of a failure (with --seed)')
    .option('--webhooks', 'the client listens for webhooks (JOBPROOF_WEBHOOK_PORT)')
    .option('--report <spec>', 'write reports: junit=PATH,json=PATH,md=PATH')
    .option('--parallel <n>', 'scenarios run at once (default: CPU cores)')
    .option('--time-scale <f>', 'stretch every scenario time by this factor (slow-starting clients, loaded CI)', '1')
    .option('--tasks', 'also run the task scenarios (approval, redraft, lost apply) against the reference task client, in-process')
    .option('--shard <i/n>', 'run part i of n of the catalog and of the random schedules (CI runners side by side); join the JSON reports with `jobproof report merge`')
    .option('--minimal-out <file>', 'where to write the minimal failing schedule', 'jobproof-minimal-failure.json')
    .addHelpText('after', '\nExamples:\n  npx jobproof certify\n  npx jobproof certify --client "python3 examples/python-client/client.py" --report junit=reports/jobproof.xml,md=reports/certificate.md\n  npx jobproof certify --in-process --runs 1000 --seed 42\n')
    .action(async (flags: CertifyFlags) => {
      if (flags.inProcess && flags.client) throw new CliError('--in-process certifies the reference client; it does not take --client');
      const reports = flags.report ? (() => { try { return parseReportSpec(flags.report!); } catch (e) { throw new CliError((e as Error).message); } })() : [];
      let client: ClientUnderTest;
      let label: string;
      if (flags.inProcess) {
        const { createReferenceClient } = await import('../reference-client/index.js');
        client = { kind: 'in-process', factory: createReferenceClient };
        label = 'jobproof reference client (in-process)';
      } else {
        client = { kind: 'process', command: flags.client ?? referenceCommand() };
        label = flags.client ?? 'jobproof reference client';
      }
      // The in-process reference client always listens for webhooks.
      const factor = Number(flags.timeScale ?? '1');
      if (!(factor >= 0.1 && factor <= 20)) throw new CliError(`--time-scale must be between 0.1 and 20, got '${flags.timeScale}'`);
      let shard: Shard | undefined;
      if (flags.shard) {
        try {
          shard = parseShard(flags.shard);
        } catch (e) {
          throw new CliError((e as Error).message);
        }
        if (flags.path) throw new CliError('--path replays one schedule; it does not shard');
      }
      const picked = shardItems(pickScenarios({ ...flags, webhooks: flags.webhooks || flags.inProcess }).map((s) => scaleScenarioTime(s, factor)), shard);
      const scenarios = picked.map((x) => x.item);
      const runs = int(flags.runs, '--runs', client.kind === 'in-process' ? 200 : 0);
      const seed = int(flags.seed, '--seed', Date.now() % 2 ** 31);
      const parallel = Math.max(1, int(flags.parallel, '--parallel', client.kind === 'process' ? availableParallelism() : 1));
      const out = (s: string) => process.stdout.write(s + '\n');
      out(`jobproof ${version} certify — ${label}`);
      out(`runner: ${client.kind}; scenarios: ${scenarios.length}; random schedules: ${runs}; seed: ${seed}${client.kind === 'process' ? `; parallel: ${parallel}` : ''}`);
      if (shard) out(`shard ${shard.index}/${shard.count}: catalog positions ${picked.map((x) => x.position + 1).join(', ') || 'none'}; random schedules ${shard.index}, ${shard.index + shard.count}, ${shard.index + 2 * shard.count}, … of the seeded sequence`);
      const started = Date.now();
      const results = await runCatalog(client, scenarios, { parallel, seed, onResult: (r, i, n) => out(progressLine(r, i, n)) });
      const cert: Certification = { version, client: label, runner: client.kind, seed, startedAt: new Date(started).toISOString(), wallMs: 0, scenarios: results };
      if (shard) cert.shard = { ...shard, positions: picked.map((x) => x.position) };
      if (runs > 0) {
        out(`\nproperty run: ${runs} random schedules (seed ${seed})…`);
        cert.property = await propertyRun(client, {
          runs, seed, path: flags.path, shard,
          onRun: (n) => { if (n % 50 === 0) out(`  ${n} schedules run`); },
        });
        const p = cert.property;
        if (p.failed && p.counterexample) {
          const file = resolve(flags.minimalOut ?? 'jobproof-minimal-failure.json');
          writeFileSync(file, JSON.stringify(p.counterexample.scenario, null, 2) + '\n');
          out(`  FAILED after ${p.runs} runs, shrunk ${p.numShrinks} times (seed ${p.seed}, path ${p.path})`);
          for (const l of failureLines(p.counterexample.run)) out(`    ${l}`);
          out(`  minimal schedule written to ${file}`);
          out(`  replay: npx jobproof certify ${flags.client ? `--client "${flags.client}" ` : flags.inProcess ? '--in-process ' : ''}--scenario-file ${file}`);
          out(`      or: npx jobproof certify ${flags.client ? `--client "${flags.client}" ` : flags.inProcess ? '--in-process ' : ''}--scenarios none --runs 1 --seed ${p.seed} --path ${p.path}`);
        } else {
          out(`  ${p.runs} schedules, every invariant held (${(p.wallMs / 1000).toFixed(1)} s, ${(p.runs / (p.wallMs / 1000)).toFixed(1)} schedules/s)`);
        }
      }
      let tasksOk = true;
      // The task scenarios are few and in-process: the first shard runs them all.
      if (flags.tasks && (!shard || shard.index === 1)) tasksOk = await runTaskCatalog(out);
      cert.wallMs = Date.now() - started;
      out('\ninvariant                     verdict   broken in');
      for (const t of invariantTotals(cert)) out(`${`${t.id} ${t.name}`.padEnd(29)} ${t.status.padEnd(9)} ${t.brokenIn.join(', ')}`);
      for (const r of results.filter((x) => failureLines(x).length)) {
        out(`\n${r.scenario}:`);
        for (const l of failureLines(r)) out(`  ${l}`);
        for (const d of r.diagnostics.slice(0, 5)) out(`  client: ${d}`);
      }
      writeReports(cert, reports);
      for (const t of reports) out(`report: ${t.kind} → ${t.path}`);
      const ok = passed(cert) && tasksOk;
      out(`\n${ok ? 'PASSED' : 'FAILED'}: ${results.filter(runPassed).length}/${results.length} scenarios${cert.property ? `, property run ${cert.property.failed ? 'failed' : 'held'}` : ''} in ${(cert.wallMs / 1000).toFixed(1)} s`);
      process.exitCode = ok ? 0 : 1;
    });
}

/** The task scenarios (tasks-api.md) against the reference task client, in-process; prints a line per scenario. */
async function runTaskCatalog(out: (s: string) => void): Promise<boolean> {
  const { TASK_SCENARIOS, runTaskScenario } = await import('../conformance/tasks/index.js');
  const { createTaskClient } = await import('../reference-client/tasks/index.js');
  out(`\ntask scenarios: ${TASK_SCENARIOS.length} (reference task client, in-process)`);
  let ok = true;
  for (const [i, s] of TASK_SCENARIOS.entries()) {
    const run = await runTaskScenario(s, (env) => createTaskClient({ ...env, workerId: 'task-worker-1' }));
    const good = run.verdict.ok && run.problems.length === 0;
    ok &&= good;
    out(`[${i + 1}/${TASK_SCENARIOS.length}] ${run.scenario.padEnd(24)} ${good ? 'pass' : 'FAIL'}${run.verdict.failed.length ? `  broken: ${run.verdict.failed.join(' ')}` : ''}`);
    for (const p of run.problems) out(`    ${p}`);
  }
  return ok;
}
