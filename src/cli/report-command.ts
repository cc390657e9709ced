import type { Command } from 'commander';
import { certificationFromJson } from '../conformance/report/read-json.js';
import { MergeError, mergeCertifications } from '../conformance/report/merge.js';
import { invariantTotals, passed, runPassed } from '../conformance/report/summary.js';
import { parseReportSpec, writeReports } from '../conformance/report/write-reports.js';
import { CliError, readJsonFile } from './read-json-file.js';

/** `jobproof report merge a.json b.json … --report junit=…,md=…,json=…`: one certificate from the shards of a run. */
export function registerReport(program: Command): void {
  const report = program.command('report').description('work with certification reports');
  report
    .command('merge')
    .description('join the JSON reports of `certify --shard 1/n … n/n` into one certificate; exit 0 when it certifies, 1 when not')
    .argument('<reports...>', 'JSON reports written by `certify --shard i/n --report json=…`, one per shard')
    .option('--report <spec>', 'write the joined certificate: junit=PATH,json=PATH,md=PATH')
    .addHelpText('after', '\nExample:\n  npx jobproof report merge shard-1.json shard-2.json shard-3.json --report junit=jobproof.xml,md=certificate.md,json=certificate.json\n')
    .action((files: string[], flags: { report?: string }) => {
      let targets: ReturnType<typeof parseReportSpec> = [];
      try {
        targets = flags.report ? parseReportSpec(flags.report) : [];
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      const parts = files.map((f) => {
        try {
          return certificationFromJson(readJsonFile(f, 'report'), f);
        } catch (e) {
          throw e instanceof CliError ? e : new CliError((e as Error).message);
        }
      });
      let cert;
      try {
        cert = mergeCertifications(parts);
      } catch (e) {
        if (e instanceof MergeError) throw new CliError(e.message);
        throw e;
      }
      const out = (s: string) => process.stdout.write(`${s}\n`);
      out(`jobproof report merge — ${cert.client}; ${parts.length} part${parts.length === 1 ? '' : 's'}; seed ${cert.seed}`);
      for (const r of cert.scenarios) out(`  ${r.scenario.padEnd(24)} ${runPassed(r) ? 'pass' : 'FAIL'}`);
      if (cert.property) out(`  random schedules: ${cert.property.planned ?? cert.property.runs} (${cert.property.executed ?? cert.property.runs} run across the shards) ${cert.property.failed ? 'FAILED' : 'held'}`);
      const broken = invariantTotals(cert).filter((t) => t.status === 'broken');
      for (const t of broken) out(`  ${t.id} ${t.name}: broken in ${t.brokenIn.join(', ')}`);
      writeReports(cert, targets);
      for (const t of targets) out(`report: ${t.kind} → ${t.path}`);
      const ok = passed(cert);
      out(`${ok ? 'PASSED' : 'FAILED'}: ${cert.scenarios.filter(runPassed).length}/${cert.scenarios.length} scenarios${cert.property ? `, random schedules ${cert.property.failed ? 'failed' : 'held'}` : ''}`);
      process.exitCode = ok ? 0 : 1;
    });
}
