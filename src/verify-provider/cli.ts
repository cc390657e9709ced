import type { Command } from 'commander';
import { CliError, readJsonFile } from '../lib/read-json-file.js';
import { CHECKS } from './checks/index.js';
import { parseReportSpec, writeReports } from './report.js';
import { verifyProvider } from './run.js';
import { castOf, PilotPlanSchema, planExpectationFaults, resolveTokens } from './plan.js';
import type { CheckResult, VerifyOptions } from './types.js';

interface Flags {
  url?: string;
  token?: string;
  plan?: string;
  token2?: string;
  otherTenantToken?: string;
  reviewerToken?: string;
  controlToken?: string;
  report?: string;
  only?: string;
  timeout?: string;
}

function line(r: CheckResult, i: number, n: number): string {
  const mark = r.status === 'passed' ? 'pass' : r.status === 'failed' ? 'FAIL' : 'not run';
  const seen = r.expected !== undefined ? `  [expected ${r.expected}, got ${r.got ?? 'nothing'}]` : '';
  return `[${String(i).padStart(String(n).length)}/${n}] ${r.name.padEnd(30)} ${mark.padEnd(7)} ${r.explanation}${seen}`;
}

/** The options a --plan gives: tokens picked by tenant and role, the tenants, the plan itself. */
function fromPlan(file: string): { url?: string; opts: Omit<VerifyOptions, 'url'> } {
  const parsed = PilotPlanSchema.safeParse(readJsonFile(file, 'plan'));
  if (!parsed.success)
    throw new CliError(`plan ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  const plan = parsed.data;
  const faults = planExpectationFaults(plan, CHECKS);
  if (faults.length) throw new CliError(`plan ${file}: ${faults.join('; ')}`);
  try {
    const tokens = resolveTokens(plan);
    const cast = castOf(tokens);
    return {
      url: plan.url,
      opts: {
        token: cast.token,
        token2: cast.token2,
        reviewerToken: cast.reviewerToken,
        otherTenantToken: cast.otherTenantToken,
        bothRolesToken: cast.bothRolesToken,
        controlToken: plan.control_token,
        tenants: Object.fromEntries(cast.tenantOf),
        plan,
        waitMs: plan.timeout_ms,
      },
    };
  } catch (e) {
    throw new CliError(`plan ${file}: ${(e as Error).message}`);
  }
}

/** `jobproof verify-provider`: check a provider (a real one, or the fake) against provider-api.md and tasks-api.md. */
export function registerVerifyProvider(program: Command): void {
  program
    .command('verify-provider')
    .description('check a provider over HTTP against provider-api.md and tasks-api.md; exit 0 only when no check failed')
    .option(
      '--plan <file>',
      'a pilot plan (JSON): tokens with tenants and roles, the object to draft against, how to change it, expected answers; see examples/pilot-plan.json',
    )
    .option('--url <url>', 'base URL of the provider, e.g. http://127.0.0.1:4010 (or "url" in the plan)')
    .option('--token <t>', 'a submitter token (without --plan)')
    .option('--token-2 <t>', 'another submitter of the same tenant')
    .option('--other-tenant-token <t>', 'a token of another tenant')
    .option('--reviewer-token <t>', 'a reviewer of the same tenant')
    .option('--control-token <t>', 'the control API token (checks that need faults, objects or roles are not run without it)')
    .option('--report <spec>', 'write reports: junit=PATH,json=PATH,md=PATH')
    .option('--only <names>', `run only these checks, joined by commas (${CHECKS.length} in all)`)
    .option('--timeout <ms>', "how long to wait for a job or task to get somewhere (default 20000, or the plan's timeout_ms)")
    .addHelpText(
      'after',
      `\nChecks:\n${CHECKS.map((c) => `  ${c.name.padEnd(30)} ${c.description}`).join('\n')}\n\nExamples:\n  npx jobproof verify-provider --plan examples/pilot-plan.json --report md=reports/pilot.md\n  npx jobproof verify-provider --url http://127.0.0.1:4010 --token dev-token --token-2 dev-token-2 \\\n    --other-tenant-token other-tenant-token --reviewer-token reviewer-token --control-token control-token \\\n    --report junit=reports/provider.xml,md=reports/provider.md\n`,
    )
    .action(async (flags: Flags) => {
      const tokenFlags = (['token', 'token2', 'otherTenantToken', 'reviewerToken', 'controlToken'] as const).filter(
        (k) => flags[k] !== undefined,
      );
      if (flags.plan && tokenFlags.length)
        throw new CliError(
          'give the tokens in the plan or as flags, not both (--plan with --token, --token-2, --other-tenant-token, --reviewer-token or --control-token)',
        );
      const planned = flags.plan ? fromPlan(flags.plan) : undefined;
      if (!planned && !flags.token) throw new CliError('--token is required (or give a --plan)');
      const rawUrl = flags.url ?? planned?.url;
      if (!rawUrl) throw new CliError('--url is required (or "url" in the plan)');
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        throw new CliError(`--url must be an absolute URL, got '${rawUrl}'`);
      }
      let reports: ReturnType<typeof parseReportSpec> = [];
      try {
        if (flags.report) reports = parseReportSpec(flags.report);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      const only = flags.only
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const unknown = only?.filter((n) => !CHECKS.some((c) => c.name === n)) ?? [];
      if (unknown.length) throw new CliError(`unknown check(s): ${unknown.join(', ')}`);
      const waitMs = Number(flags.timeout ?? planned?.opts.waitMs ?? 20_000);
      if (!Number.isInteger(waitMs) || waitMs <= 0)
        throw new CliError(`--timeout must be a positive whole number of ms, got '${flags.timeout}'`);
      const out = (s: string) => process.stdout.write(s + '\n');
      out(`jobproof verify-provider — ${url.origin}${flags.plan ? ` (plan ${flags.plan})` : ''}`);
      const opts: VerifyOptions = planned
        ? { ...planned.opts, url: url.toString(), waitMs, only }
        : {
            url: url.toString(),
            token: flags.token!,
            token2: flags.token2,
            otherTenantToken: flags.otherTenantToken,
            reviewerToken: flags.reviewerToken,
            controlToken: flags.controlToken,
            waitMs,
            only,
          };
      const report = await verifyProvider(opts, (r, i, n) => out(line(r, i, n)));
      if (!report.control) out(`control API not used: ${report.control_note}`);
      for (const c of report.checks.filter((x) => x.status === 'failed')) {
        out(`\n${c.name}: ${c.explanation}`);
        for (const e of c.evidence) out(`  ${e}`);
        for (const e of c.audit ?? []) out(`  audit ${e}`);
      }
      writeReports(report, reports);
      for (const t of reports) out(`report: ${t.kind} → ${t.path}`);
      out(
        `\n${report.passed ? 'PASSED' : 'FAILED'}: ${report.counts.passed} passed, ${report.counts.failed} failed, ${report.counts.not_run} not run in ${(report.wall_ms / 1000).toFixed(1)} s`,
      );
      process.exitCode = report.passed ? 0 : 1;
    });
}
