import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { calibrateLanes } from '../conformance/calibrate.js';
import { processLanes, runCatalog, type ClientUnderTest } from '../conformance/catalog-run.js';
import { buildReport, scenarioCase, skippedCase } from '../conformance/report/build.js';
import type { ReportCase, TimeScale } from '../conformance/report/schema.js';
import { parseReportSpec, writeReports } from '../conformance/report/write-reports.js';
import { parseShard, shardItems, type Shard } from '../conformance/shard.js';
import { catalog, getScenario, parseScenario, scaleScenarioTime, type Scenario } from '../scenarios/index.js';
import { head, printVerdicts, progressLine, summaryLine, timeScaleLine } from './certify-lines.js';
import { certifySchedules } from './certify-schedules.js';
import { runTaskCatalog, type TaskClientSpec } from './certify-tasks.js';
import { referenceCommand } from './reference-command.js';
import { CliError, readJsonFile } from '../lib/read-json-file.js';
import { CLIENT_DIALECTS, type ClientDialect } from '../conformance/dialect/batch-input.js';
import { notApplicableIn } from '../conformance/dialect/applicability.js';

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
  shrinkTime?: string;
  timeScale?: string;
  tasks?: boolean;
  dialect: string;
  shard?: string;
  lanes?: string;
}

export const NO_WEBHOOKS = 'client does not listen for webhooks';

function pickScenarios(flags: CertifyFlags): Scenario[] {
  if (flags.scenarioFile) return [parseScenario(readJsonFile(flags.scenarioFile, 'scenario'))];
  if (flags.scenarios === 'all') return [...catalog];
  if (flags.scenarios === 'none') return [];
  return flags.scenarios.split(',').map((n) => {
    try {
      return getScenario(n.trim());
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  });
}

/**
 * Without --webhooks the client has said it does not listen (client-protocol.md): a webhook scenario runs on polling
 * alone and is judged on what polling can show; one that tests nothing but webhook handling (I13 only) is skipped.
 */
export function forWebhooks(s: Scenario, webhooks: boolean): { run: Scenario } | { skip: string } {
  if (!s.webhooks || webhooks) return { run: s };
  if (s.invariants.every((id) => id === 'I13')) return { skip: NO_WEBHOOKS };
  return { run: { ...s, webhooks: false } };
}

function int(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} must be a whole number ≥ 0, got '${v}'`);
  return n;
}

export function registerCertify(program: Command, version: string): void {
  program
    .command('certify')
    .description('judge a client against the fault catalog, random fault schedules and task scenarios; exit 0 only when certified')
    .option('--client <command>', 'the client command (client-protocol.md); default: the reference client')
    .option('--in-process', 'certify the reference client in-process on a virtual clock (fast; no --client)')
    .option('--scenarios <list>', "'all', 'none', or names joined by commas", 'all')
    .option('--scenario-file <file>', 'run one scenario from a JSON file (e.g. a minimal failure written earlier)')
    .option('--runs <n>', 'random fault schedules after the catalog (default: 0 for processes, 200 in-process)')
    .option('--seed <s>', 'seed of the random schedules (printed on every run; reuse it to replay)')
    .option('--path <p>', 'fast-check replay path of a failure (needs --seed)')
    .option('--webhooks', 'the client listens for webhooks (JOBPROOF_WEBHOOK_PORT); without it, webhook-only scenarios are skipped')
    .option(
      '--report <spec>',
      'write reports: junit=PATH,json=PATH,md=PATH,html=PATH (html: one self-contained certificate, a sequence diagram per failure)',
    )
    .option('--parallel <n>', 'scenarios run at once (default: twice the CPU cores, at most 8; task scenarios: the cores)')
    .option(
      '--lanes <n>',
      'with --in-process: worker threads the random schedules run on (default: one per 100 schedules, up to the CPU cores); verdicts are the same for any n',
    )
    .option(
      '--time-scale <f>',
      'stretch every scenario time by this factor (default: calibrated from the client start-up under the current load)',
    )
    .option(
      '--dialect <d>',
      'the wire API the client speaks: native, openai (OpenAI Batch) or anthropic (Message Batches); sets JOBPROOF_DIALECT and gives each operation a batch as input',
      'native',
    )
    .option(
      '--tasks',
      "also run the task scenarios (approval, redraft, lost apply, crash mid-apply) through the client's task verbs (client-protocol.md) as processes; the reference task client by default, in-process with --in-process",
    )
    .option(
      '--shard <i/n>',
      'run part i of n of the catalog and of the random schedules (CI runners side by side; same --seed and --runs everywhere); join the JSON reports with `jobproof report merge`',
    )
    .option('--minimal-out <file>', 'where to write the minimal failing schedule', 'jobproof-minimal-failure.json')
    .option(
      '--shrink-time <s>',
      'seconds a failing random schedule may be shrunk before the smallest failure found so far is reported (0: no limit)',
      '300',
    )
    .addHelpText(
      'after',
      `
Verdicts: pass, fail, not_exercised (the client took another correct path that the scenario's fault never met),
skipped (not run, e.g. ${NO_WEBHOOKS}), not_applicable. Certified: no case failed and at least one passed.
Exit codes: 0 certified, 1 not certified, 2 usage error.

Examples:
  npx jobproof certify
  npx jobproof certify --client "python3 examples/python-client/client.py" --report junit=reports/jobproof.xml,md=reports/certificate.md
  npx jobproof certify --in-process --runs 1000 --seed 42
  npx jobproof certify --tasks --scenarios none --client "python3 examples/python-client/client.py"
  npx jobproof certify --dialect openai --client "node examples/sdk-clients/durable-openai.mjs"
`,
    )
    .action(async (flags: CertifyFlags) => {
      if (flags.inProcess && flags.client) throw new CliError('--in-process certifies the reference client; it does not take --client');
      if (flags.path !== undefined && flags.seed === undefined)
        throw new CliError('--path replays a failure of one seed: give the --seed it was printed with');
      const reports = flags.report
        ? (() => {
            try {
              return parseReportSpec(flags.report!, ['junit', 'json', 'md', 'html']);
            } catch (e) {
              throw new CliError((e as Error).message);
            }
          })()
        : [];
      let flagFactor: number | undefined;
      if (flags.timeScale !== undefined) {
        flagFactor = Number(flags.timeScale);
        if (!(flagFactor >= 0.1 && flagFactor <= 20))
          throw new CliError(`--time-scale must be between 0.1 and 20, got '${flags.timeScale}'`);
      }
      if (!(CLIENT_DIALECTS as readonly string[]).includes(flags.dialect))
        throw new CliError(`--dialect must be one of ${CLIENT_DIALECTS.join(', ')}, got '${flags.dialect}'`);
      const dialect = flags.dialect as ClientDialect;
      if (dialect !== 'native' && flags.inProcess) throw new CliError('--dialect runs client processes; it does not take --in-process');
      if (dialect !== 'native' && flags.webhooks)
        throw new CliError(
          '--webhooks is not supported with --dialect yet: dialect clients are certified on polling (webhook scenarios run without webhooks)',
        );
      if (dialect !== 'native' && flags.tasks) throw new CliError('--tasks certifies the native tasks API; run it without --dialect');
      let shard: Shard | undefined;
      if (flags.shard !== undefined) {
        try {
          shard = parseShard(flags.shard);
        } catch (e) {
          throw new CliError((e as Error).message);
        }
        if (flags.path !== undefined) throw new CliError('--path replays one schedule; it does not shard');
      }
      // A shard runs catalog positions p with p mod n = i - 1 (positions counted in the whole chosen catalog).
      const picked = shardItems(pickScenarios(flags), shard);
      const chosen = picked.map((x) => x.item);
      const inProcess = !!flags.inProcess;
      const runs = int(flags.runs, '--runs', inProcess ? 200 : 0);
      if (chosen.length === 0 && runs === 0 && !flags.tasks && !shard) {
        throw new CliError('nothing to certify: no scenarios, no random schedules (--runs) and no task scenarios (--tasks)');
      }
      const seed = int(flags.seed, '--seed', Date.now() % 2 ** 31);
      let parallel = Math.max(1, int(flags.parallel, '--parallel', inProcess ? 1 : processLanes(availableParallelism())));
      if (flags.lanes !== undefined && !inProcess)
        throw new CliError('--lanes runs random schedules on threads in-process: it needs --in-process');
      // A lane's start-up costs about as much CPU as 35 schedules: by default, one lane per 100 schedules, up to the cores.
      const shrinkSeconds = int(flags.shrinkTime, '--shrink-time', 300);
      const lanes = Math.max(1, int(flags.lanes, '--lanes', Math.min(availableParallelism(), Math.floor(runs / 100))));
      // The in-process reference client always listens for webhooks.
      const webhooks = !!flags.webhooks || inProcess;
      const command = flags.client ?? referenceCommand();
      const label = inProcess ? 'jobproof reference client (in-process)' : (flags.client ?? 'jobproof reference client');
      const out = (s: string) => process.stdout.write(s + '\n');
      out(`jobproof ${version} certify — ${label}${dialect !== 'native' ? ` (dialect ${dialect})` : ''}`);
      const started = Date.now();

      let timeScale: TimeScale;
      if (flagFactor !== undefined) timeScale = { factor: flagFactor, source: 'flag', client_start_ms: null, provider_round_trip_ms: null };
      else if (inProcess) timeScale = { factor: 1, source: 'virtual', client_start_ms: null, provider_round_trip_ms: null };
      else {
        out('calibrating: client start-up and provider round trip under the current load…');
        // Lanes past the cores are dropped again when the machine is too crowded for them (given lanes are kept).
        const c = await calibrateLanes(
          command,
          parallel,
          flags.parallel === undefined ? Math.min(parallel, availableParallelism()) : parallel,
        );
        parallel = c.lanes;
        timeScale = {
          factor: c.factor,
          source: 'calibrated',
          client_start_ms: c.clientStartMs,
          provider_round_trip_ms: c.providerRoundTripMs,
        };
      }
      out(timeScaleLine(timeScale));
      const factor = timeScale.factor;
      let client: ClientUnderTest;
      if (inProcess) {
        const { createInMemoryReferenceClient } = await import('../reference-client/index.js');
        client = { kind: 'in-process', factory: createInMemoryReferenceClient };
      } else {
        client = { kind: 'process', command, timeScale: factor, dialect };
      }
      const cases: ReportCase[] = new Array(chosen.length);
      const toRun: Array<{ at: number; scenario: Scenario }> = [];
      chosen.forEach((s, at) => {
        const w = forWebhooks(s, webhooks);
        const na = notApplicableIn(dialect, s);
        if (na) cases[at] = skippedCase(s.name, `${dialect}: ${na}`, 'not_applicable');
        else if ('skip' in w) cases[at] = skippedCase(s.name, w.skip);
        else toRun.push({ at, scenario: scaleScenarioTime(w.run, factor) });
      });
      const skipped = cases.filter((c) => c?.verdict === 'skipped').length;
      const notApplicable = cases.filter((c) => c?.verdict === 'not_applicable').length;
      out(
        `runner: ${client.kind}; scenarios: ${toRun.length}${skipped ? ` (+${skipped} skipped: ${NO_WEBHOOKS})` : ''}${notApplicable ? ` (+${notApplicable} not applicable in ${dialect})` : ''}; random schedules: ${runs}; seed: ${seed}; webhooks: ${webhooks ? 'on' : 'off (polling only)'}${client.kind === 'process' ? `; parallel: ${parallel}` : ''}`,
      );
      if (shard) {
        out(
          `shard ${shard.index}/${shard.count}: catalog positions ${picked.map((x) => x.position + 1).join(', ') || 'none'}; random schedules ${shard.index}, ${shard.index + shard.count}, ${shard.index + 2 * shard.count}, … of the seeded sequence`,
        );
      }
      let shown = 0;
      chosen.forEach((s, i) => {
        if (cases[i]) out(`${head(++shown, chosen.length, s.name)} ${cases[i]!.verdict.replace('_', ' ')}: ${cases[i]!.reason}`);
      });
      const results = await runCatalog(
        client,
        toRun.map((r) => r.scenario),
        { parallel, seed, onResult: (r) => out(progressLine(r, ++shown, chosen.length)) },
      );
      for (const [i, r] of results.entries()) cases[toRun[i]!.at] = scenarioCase(r);
      // The HTML certificate draws each failing case from its run (the JSON report keeps no journal).
      const htmlRuns = new Map(results.map((r) => [r.scenario, r] as const));
      let minimalOut: string | undefined;

      if (runs > 0) {
        const r = await certifySchedules(
          {
            ...{ client, runs, seed, shard, lanes, path: flags.path, factor, webhooks, minimalOut: flags.minimalOut },
            clientFlag: flags.client,
            shrinkBudgetMs: shrinkSeconds > 0 ? shrinkSeconds * 1000 : undefined,
          },
          out,
        );
        cases.push(r.case);
        if (r.counterexample) htmlRuns.set(r.case.name, r.counterexample);
        minimalOut = r.minimalOut;
      }
      // The task scenarios are few: shard 1 runs them all.
      if (flags.tasks && (!shard || shard.index === 1)) {
        // Through the client command's task verbs as processes (the reference client's by default), or in-process.
        const spec: TaskClientSpec = inProcess ? { kind: 'in-process' } : { kind: 'process', command, label };
        // Task runs start their clock when every task exists at the provider, so a slow client start costs them
        // nothing: the calibrated stretch is not needed (it would make no-approval-yet wait minutes); --time-scale is kept.
        const taskScale = timeScale.source === 'flag' ? factor : 1;
        // Unstretched, they get no more lanes than cores unless asked.
        const taskLanes = flags.parallel === undefined ? Math.min(parallel, availableParallelism()) : parallel;
        cases.push(...(await runTaskCatalog(spec, { timeScale: taskScale, parallel: taskLanes }, out)));
      }
      for (const [k, x] of picked.entries()) if (cases[k]) cases[k] = { ...cases[k]!, position: x.position };

      const report = buildReport(
        {
          version,
          client: label,
          runner: client.kind,
          seed,
          startedAt: new Date(started).toISOString(),
          wallMs: Date.now() - started,
          timeScale,
          webhooks,
          dialect,
        },
        cases,
      );
      if (shard) report.shard = { index: shard.index, count: shard.count };
      printVerdicts(report, results, out);
      const clientArgs = flags.client ? `--client ${JSON.stringify(flags.client)}` : inProcess ? '--in-process' : '';
      writeReports(report, reports, {
        runs: htmlRuns,
        clientArgs: `${clientArgs}${webhooks && !inProcess ? ' --webhooks' : ''}`.trim(),
        minimalOut,
      });
      for (const t of reports) out(`report: ${t.kind} → ${t.path}`);
      out(summaryLine(report, cases.length, factor));
      process.exitCode = report.passed ? 0 : 1;
    });
}
