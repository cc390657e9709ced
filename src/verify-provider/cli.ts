import type { Command } from 'commander';
import { CliError } from '../lib/read-json-file.js';
import { CHECKS } from './checks/index.js';
import { parseReportSpec, writeReports } from './report.js';
import { verifyProvider } from './run.js';
import type { CheckResult } from './types.js';

interface Flags {
  url: string;
  token: string;
  token2?: string;
  otherTenantToken?: string;
  reviewerToken?: string;
  controlToken?: string;
  report?: string;
  only?: string;
  timeout?: string;
}

function line(r: CheckResult, i: number, n: number): string {
  const mark = r.status === 'passed' ? 'pass' : r.status === 'failed' ? 'FAIL' : 'skip';
  return `[${String(i).padStart(String(n).length)}/${n}] ${r.name.padEnd(30)} ${mark}  ${r.explanation}`;
}

/** `jobproof verify-provider`: check a provider (a real one, or the fake) against provider-api.md and tasks-api.md. */
export function registerVerifyProvider(program: Command): void {
  program
    .command('verify-provider')
    .description('check a provider over HTTP against provider-api.md and tasks-api.md; exit 0 only when no check failed')
    .requiredOption('--url <url>', 'base URL of the provider, e.g. http://127.0.0.1:4010')
    .requiredOption('--token <t>', 'a submitter token')
    .option('--token-2 <t>', 'another submitter of the same tenant')
    .option('--other-tenant-token <t>', 'a token of another tenant')
    .option('--reviewer-token <t>', 'a reviewer of the same tenant')
    .option('--control-token <t>', 'the control API token (checks that need faults, objects or roles are not run without it)')
    .option('--report <spec>', 'write reports: junit=PATH,json=PATH,md=PATH')
    .option('--only <names>', `run only these checks, joined by commas (${CHECKS.length} in all)`)
    .option('--timeout <ms>', 'how long to wait for a job or task to get somewhere', '20000')
    .addHelpText('after', `\nChecks:\n${CHECKS.map((c) => `  ${c.name.padEnd(30)} ${c.description}`).join('\n')}\n\nExample:\n  npx jobproof verify-provider --url http://127.0.0.1:4010 --token dev-token --token-2 dev-token-2 \\\n    --other-tenant-token other-tenant-token --reviewer-token reviewer-token --control-token control-token \\\n    --report junit=reports/provider.xml,md=reports/provider.md\n`)
    .action(async (flags: Flags) => {
      let url: URL;
      try {
        url = new URL(flags.url);
      } catch {
        throw new CliError(`--url must be an absolute URL, got '${flags.url}'`);
      }
      let reports: ReturnType<typeof parseReportSpec> = [];
      try {
        if (flags.report) reports = parseReportSpec(flags.report);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      const only = flags.only?.split(',').map((s) => s.trim()).filter(Boolean);
      const unknown = only?.filter((n) => !CHECKS.some((c) => c.name === n)) ?? [];
      if (unknown.length) throw new CliError(`unknown check(s): ${unknown.join(', ')}`);
      const waitMs = Number(flags.timeout);
      if (!Number.isInteger(waitMs) || waitMs <= 0) throw new CliError(`--timeout must be a positive whole number of ms, got '${flags.timeout}'`);
      const out = (s: string) => process.stdout.write(s + '\n');
      out(`jobproof verify-provider — ${url.origin}`);
      const report = await verifyProvider(
        {
          url: url.toString(), token: flags.token, token2: flags.token2, otherTenantToken: flags.otherTenantToken,
          reviewerToken: flags.reviewerToken, controlToken: flags.controlToken, waitMs, only,
        },
        (r, i, n) => out(line(r, i, n)),
      );
      if (!report.control) out(`control API not used: ${report.control_note}`);
      for (const c of report.checks.filter((x) => x.status === 'failed')) {
        out(`\n${c.name}: ${c.explanation}`);
        for (const e of c.evidence) out(`  ${e}`);
      }
      writeReports(report, reports);
      for (const t of reports) out(`report: ${t.kind} → ${t.path}`);
      out(`\n${report.passed ? 'PASSED' : 'FAILED'}: ${report.counts.passed} passed, ${report.counts.failed} failed, ${report.counts.not_run} not run in ${(report.wall_ms / 1000).toFixed(1)} s`);
      process.exitCode = report.passed ? 0 : 1;
    });
}
