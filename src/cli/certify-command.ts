import type { Command } from 'commander';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { InProcessClientFactory } from '../contract/client-protocol.js';
import type { InProcessTaskClientFactory } from '../contract/task-client-protocol.js';
import { processLanes } from '../conformance/catalog-run.js';
import { CLIENT_DIALECTS, type ClientDialect } from '../conformance/dialect/batch-input.js';
import { builtinProfileNames, describeLoad, loadProfile } from '../contract/profile-files.js';
import { certify, NO_WEBHOOKS, webhooksRefusal, type CertificationPlan } from '../conformance/pipeline/index.js';
import { parseReportSpec, writeReports, type ReportTarget } from '../conformance/report/write-reports.js';
import { parseShard, type Shard } from '../conformance/shard.js';
import { CliError, readJsonFile } from '../lib/read-json-file.js';
import { catalog, getScenario, parseScenario, type Scenario } from '../scenarios/index.js';
import { printVerdicts, summaryLine } from './certify-lines.js';
import { referenceCommand } from './reference-command.js';

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
  profile?: string;
  shard?: string;
  lanes?: string;
}

/** The in-process clients `--in-process` certifies (the reference clients by default; a test may give its own). */
export interface CertifyDeps {
  inProcess?: () => Promise<{ jobs: InProcessClientFactory; tasks: InProcessTaskClientFactory; label: string }>;
}

async function referenceInProcess(
  profile?: CertificationPlan['profile'],
): Promise<{ jobs: InProcessClientFactory; tasks: InProcessTaskClientFactory; label: string }> {
  const { createInMemoryReferenceClient, inMemoryReferenceClientFor } = await import('../reference-client/index.js');
  const { createTaskClient } = await import('../reference-client/tasks/index.js');
  return {
    jobs: profile ? inMemoryReferenceClientFor({ profile: profile.profile }) : createInMemoryReferenceClient,
    tasks: (env) => createTaskClient({ ...env, workerId: 'task-worker-1' }),
    label: 'jobproof reference client (in-process)',
  };
}

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

function int(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new CliError(`${name} must be a whole number ≥ 0, got '${v}'`);
  return n;
}

function reportTargets(flags: CertifyFlags): ReportTarget[] {
  if (!flags.report) return [];
  try {
    return parseReportSpec(flags.report, ['junit', 'json', 'md', 'html']);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

/**
 * `--profile FILE|NAME`: the profile, checked (its located problems are a usage error), and what client processes
 * are given as JOBPROOF_DIALECT — a built-in's name, else the file's absolute path (a name alone finds nothing outside
 * the package). Flags a profile run cannot take yet are refused here.
 */
function profileTarget(flags: CertifyFlags, dialect: ClientDialect): NonNullable<CertificationPlan['profile']> {
  const given = flags.profile!;
  if (dialect !== 'native') throw new CliError('--profile names the API the client speaks; it does not take --dialect');
  if (flags.webhooks)
    throw new CliError(
      '--webhooks is not supported with --profile yet: profile clients are certified on polling (webhook scenarios run without webhooks)',
    );
  if (flags.tasks) throw new CliError('--tasks certifies the native tasks API; run it without --profile');
  if (flags.runs !== undefined && flags.runs !== '0')
    throw new CliError('--runs draws random schedules over the native API; with --profile only the catalog runs');
  const l = loadProfile(given);
  if (!l.ok) throw new CliError(`--profile ${given} does not check:\n${describeLoad(l)}`);
  const builtin = builtinProfileNames().includes(given);
  return {
    profile: l.profile,
    dialect: builtin ? given : resolve(l.file),
    source: builtin ? `built-in profile ${given}` : given,
  };
}

/** The flags as a certification plan (usage errors as CliError, exit 2); the pipeline does the rest. */
export async function planFromFlags(flags: CertifyFlags, version: string, deps: CertifyDeps = {}): Promise<CertificationPlan> {
  if (flags.inProcess && flags.client) throw new CliError('--in-process certifies the reference client; it does not take --client');
  if (flags.path !== undefined && flags.seed === undefined)
    throw new CliError('--path replays a failure of one seed: give the --seed it was printed with');
  reportTargets(flags);
  let timeScale: number | undefined;
  if (flags.timeScale !== undefined) {
    timeScale = Number(flags.timeScale);
    if (!(timeScale >= 0.1 && timeScale <= 20)) throw new CliError(`--time-scale must be between 0.1 and 20, got '${flags.timeScale}'`);
  }
  if (!(CLIENT_DIALECTS as readonly string[]).includes(flags.dialect))
    throw new CliError(`--dialect must be one of ${CLIENT_DIALECTS.join(', ')}, got '${flags.dialect}'`);
  const dialect = flags.dialect as ClientDialect;
  const profile = flags.profile === undefined ? undefined : profileTarget(flags, dialect);
  if (dialect !== 'native' && flags.inProcess) throw new CliError('--dialect runs client processes; it does not take --in-process');
  const refusal = flags.webhooks ? webhooksRefusal({ dialect }) : null;
  if (refusal) throw new CliError(refusal);
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
  const scenarios = pickScenarios(flags);
  const inProcess = !!flags.inProcess;
  const runs = int(flags.runs, '--runs', inProcess && !profile ? 200 : 0);
  if (scenarios.length === 0 && runs === 0 && !flags.tasks && !shard) {
    throw new CliError('nothing to certify: no scenarios, no random schedules (--runs) and no task scenarios (--tasks)');
  }
  const seed = int(flags.seed, '--seed', Date.now() % 2 ** 31);
  const parallel = Math.max(1, int(flags.parallel, '--parallel', inProcess ? 1 : processLanes(availableParallelism())));
  if (flags.lanes !== undefined && !inProcess)
    throw new CliError('--lanes runs random schedules on threads in-process: it needs --in-process');
  // A lane's start-up costs about as much CPU as 35 schedules: by default, one lane per 100 schedules, up to the cores.
  const shrinkSeconds = int(flags.shrinkTime, '--shrink-time', 300);
  const lanes = Math.max(1, int(flags.lanes, '--lanes', Math.min(availableParallelism(), Math.floor(runs / 100))));
  const local = inProcess ? await (deps.inProcess ?? (() => referenceInProcess(profile)))() : undefined;
  return {
    version,
    label: local ? local.label : (flags.client ?? 'jobproof reference client'),
    client: local
      ? {
          kind: 'in-process',
          jobs: local.jobs,
          tasks: local.tasks,
          // Worker threads load the reference client themselves (a given factory runs on this thread).
          jobsModule: deps.inProcess
            ? undefined
            : { module: new URL('../reference-client/index.js', import.meta.url).href, name: 'createInMemoryReferenceClient' },
        }
      : { kind: 'process', command: flags.client ?? referenceCommand() },
    // The in-process reference client always listens for webhooks (in the native API: a profile runs on polling).
    webhooks: !!flags.webhooks || (inProcess && !profile),
    dialect,
    profile,
    seed,
    shard,
    parallel,
    parallelGiven: flags.parallel !== undefined,
    timeScale,
    clientFlag: flags.client,
    jobs: {
      scenarios,
      runs,
      lanes,
      path: flags.path,
      minimalOut: flags.minimalOut,
      shrinkBudgetMs: shrinkSeconds > 0 ? shrinkSeconds * 1000 : undefined,
    },
    tasks: flags.tasks ? {} : undefined,
  };
}

export function registerCertify(program: Command, version: string, deps: CertifyDeps = {}): void {
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
    .option(
      '--webhooks',
      'the client listens for webhooks (JOBPROOF_WEBHOOK_PORT; in the openai dialect the run gets its own project whose endpoint relays to the workers); without it, webhook-only scenarios are skipped',
    )
    .option(
      '--report <spec>',
      'write reports: junit=PATH,json=PATH,md=PATH,html=PATH (html: one self-contained certificate, a sequence diagram per failure)',
    )
    .option(
      '--parallel <n>',
      'scenarios run at once (default: twice the CPU cores, at most 8, the cores if calibration finds the machine too crowded; task scenarios: the cores)',
    )
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
      '--profile <file|name>',
      'the API profile the client speaks (profiles.md: a built-in name such as google-lro, or a profile file): each scenario serves it, the client gets JOBPROOF_DIALECT=<profile> and JOBPROOF_BASE_URL, and each operation the request body the API takes; scenarios the profile cannot express are not_applicable with the reason',
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
  npx jobproof certify --dialect openai --webhooks
  npx jobproof certify --profile google-lro
  npx jobproof certify --profile examples/profiles/reports.json --client "python3 examples/profile-clients/reports_client.py"
`,
    )
    .action(async (flags: CertifyFlags) => {
      const plan = await planFromFlags(flags, version, deps);
      const reports = reportTargets(flags);
      const out = (s: string) => process.stdout.write(s + '\n');
      const api = plan.profile ? ` (profile ${plan.profile.profile.name})` : plan.dialect !== 'native' ? ` (dialect ${plan.dialect})` : '';
      out(`jobproof ${version} certify — ${plan.label}${api}`);
      const r = await certify(plan, out);
      printVerdicts(r.report, r.runs, out);
      const inProcess = plan.client.kind === 'in-process';
      const clientArgs = flags.client ? `--client ${JSON.stringify(flags.client)}` : inProcess ? '--in-process' : '';
      writeReports(r.report, reports, {
        runs: r.drawn,
        clientArgs:
          `${clientArgs}${plan.webhooks && !inProcess ? ' --webhooks' : ''}${flags.profile ? ` --profile ${JSON.stringify(flags.profile)}` : ''}`.trim(),
        minimalOut: r.minimalOut,
      });
      for (const t of reports) out(`report: ${t.kind} → ${t.path}`);
      out(summaryLine(r.report, r.report.cases.length, r.report.time_scale.factor));
      process.exitCode = r.report.passed ? 0 : 1;
    });
}
