import type { Command } from 'commander';
import { MergeError, mergeReports, parseReport } from '../conformance/report/merge.js';
import type { CertificationReport } from '../conformance/report/schema.js';
import { parseReportSpec, writeReports } from '../conformance/report/write-reports.js';
import { CliError, readJsonFile } from '../lib/read-json-file.js';

/** `jobproof report merge a.json b.json … --report junit=…,md=…,json=…`: one certificate from the shards of a run. */
export function registerReport(program: Command): void {
  const report = program.command('report').description('work with certification reports');
  report
    .command('merge')
    .description('join the JSON reports of `certify --shard 1/n … n/n` into one certificate; exit 0 when it certifies, 1 when not')
    .argument('<reports...>', 'JSON reports written by `certify --shard i/n --report json=…`, one per shard')
    .option('--report <spec>', 'write the joined certificate: junit=PATH,json=PATH,md=PATH (and html=PATH where available)')
    .addHelpText(
      'after',
      '\nExample:\n  npx jobproof report merge shard-1.json shard-2.json shard-3.json --report junit=jobproof.xml,md=certificate.md,json=certificate.json\n',
    )
    .action((files: string[], flags: { report?: string }) => {
      let targets: ReturnType<typeof parseReportSpec> = [];
      try {
        targets = flags.report ? parseReportSpec(flags.report) : [];
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      let merged: CertificationReport;
      try {
        merged = mergeReports(files.map((f) => parseReport(readJsonFile(f, 'report'), f)));
      } catch (e) {
        if (e instanceof MergeError) throw new CliError(e.message);
        throw e;
      }
      const out = (s: string) => process.stdout.write(`${s}\n`);
      out(`jobproof report merge — ${merged.client}; ${files.length} part${files.length === 1 ? '' : 's'}; seed ${merged.seed}`);
      for (const k of merged.cases) out(`  ${k.name.padEnd(32)} ${k.verdict}${k.reason && k.verdict !== 'pass' ? `  (${k.reason})` : ''}`);
      for (const t of merged.invariants.filter((x) => x.status === 'broken'))
        out(`  ${t.id} ${t.name}: broken in ${t.broken_in.join(', ')}`);
      writeReports(merged, targets);
      for (const t of targets) out(`report: ${t.kind} → ${t.path}`);
      const c = merged.counts;
      out(`${merged.passed ? 'PASSED' : 'FAILED'}: ${c.pass} pass, ${c.fail} fail of ${merged.cases.length} cases`);
      process.exitCode = merged.passed ? 0 : 1;
    });
}
