import type { VerifyReport } from './run.js';
import {
  parseReportSpec,
  toJUnit as junitOf,
  toMarkdown as markdownOf,
  writeReportFiles,
  type ReportDoc,
  type ReportKind,
  type ReportTarget,
} from '../lib/report-writers.js';

export { parseReportSpec, type ReportKind };

const VERDICT = { passed: 'pass', failed: 'fail', not_run: 'not run' } as const;

/** The provider check run as the shared report writers see it (one family with `certify`'s reports). */
export function verifyDoc(r: VerifyReport): ReportDoc {
  const audited = r.checks.filter((c) => c.audit?.length);
  return {
    title: 'jobproof verify-provider',
    suite: `verify-provider ${r.url}`,
    passed: r.passed,
    startedAt: r.started_at,
    wallMs: r.wall_ms,
    facts: [
      ['provider', `\`${r.url}\``],
      ['started', r.started_at],
      ['control API', r.control ? 'used' : `not used (${r.control_note})`],
      ['checks', `${r.counts.passed} passed, ${r.counts.failed} failed, ${r.counts.not_run} not run`],
      ['wall time', `${(r.wall_ms / 1000).toFixed(1)} s`],
    ],
    // What each task check's main step expected and got; the audit record of its task (seed 004: every case has one).
    caseColumns: ['expected', 'got'],
    sections: audited.length
      ? [
          {
            heading: 'Audit records',
            lines: [
              'What `GET /v1/tasks/{id}/audit` showed after each task check.',
              '',
              ...audited.flatMap((c) => [`### ${c.name}`, '', ...c.audit!.map((a) => `- \`${a.replace(/`/g, "'")}\``), '']),
            ],
          },
        ]
      : undefined,
    cases: r.checks.map((c) => ({
      group: 'jobproof.verify-provider',
      name: c.name,
      verdict: VERDICT[c.status],
      reason: c.explanation,
      lines: [c.explanation, ...c.evidence],
      timeMs: c.duration_ms ?? 0,
      output: [
        ...(c.expected !== undefined ? [`expected ${c.expected}, got ${c.got ?? 'nothing'}`] : []),
        ...c.evidence,
        ...(c.audit ?? []).map((a) => `audit ${a}`),
      ],
      errors: [],
      failureType: 'check',
      cells: [c.expected ?? '', c.got ?? ''],
    })),
  };
}

export const toJUnit = (r: VerifyReport): string => junitOf(verifyDoc(r));
export const toMarkdown = (r: VerifyReport): string => markdownOf(verifyDoc(r));
export const toJson = (r: VerifyReport): string => JSON.stringify(r, null, 2) + '\n';

export function writeReports(r: VerifyReport, targets: ReportTarget[]): void {
  writeReportFiles(verifyDoc(r), toJson(r), targets);
}
