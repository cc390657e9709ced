import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { VerifyReport } from './run.js';
import { parseReportSpec, type ReportKind } from '../lib/report-spec.js';

export { parseReportSpec, type ReportKind };

const esc = (s: string) => s.replace(/[<>&"']/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch]!).replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, '');

/** JUnit XML: one testcase per check; failed → <failure>, not_run → <skipped>. */
export function toJUnit(r: VerifyReport): string {
  const cases = r.checks.map((c) => {
    const head = `    <testcase classname="jobproof.verify-provider" name="${esc(c.name)}" time="${((c.duration_ms ?? 0) / 1000).toFixed(3)}"`;
    const lines = [...(c.expected !== undefined ? [`expected ${c.expected}, got ${c.got ?? 'nothing'}`] : []), ...c.evidence, ...(c.audit ?? []).map((a) => `audit ${a}`)];
    const out = lines.length ? `      <system-out>${esc(lines.join('\n'))}</system-out>` : '';
    if (c.status === 'passed') return out ? `${head}>\n${out}\n    </testcase>` : `${head}/>`;
    const inner = c.status === 'failed' ? `      <failure message="${esc(c.explanation)}" type="check">${esc([c.explanation, ...c.evidence].join('\n'))}</failure>` : `      <skipped message="${esc(c.explanation)}"/>`;
    return [`${head}>`, inner, out, '    </testcase>'].filter(Boolean).join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="jobproof verify-provider" tests="${r.checks.length}" failures="${r.counts.failed}" skipped="${r.counts.not_run}" time="${(r.wall_ms / 1000).toFixed(3)}">`,
    `  <testsuite name="verify-provider ${esc(r.url)}" tests="${r.checks.length}" failures="${r.counts.failed}" skipped="${r.counts.not_run}" errors="0" timestamp="${r.started_at}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const MARK = { passed: '✓ passed', failed: '✗ FAILED', not_run: '· not run' } as const;

export function toMarkdown(r: VerifyReport): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const out = [
    `# jobproof verify-provider — ${r.passed ? 'PASSED' : 'FAILED'}`,
    '',
    '| | |',
    '| --- | --- |',
    `| provider | \`${r.url}\` |`,
    `| started | ${r.started_at} |`,
    `| control API | ${r.control ? 'used' : `not used (${r.control_note})`} |`,
    `| checks | ${r.counts.passed} passed, ${r.counts.failed} failed, ${r.counts.not_run} not run |`,
    `| wall time | ${(r.wall_ms / 1000).toFixed(1)} s |`,
    '',
    '| check | result | expected | got | explanation |',
    '| --- | --- | --- | --- | --- |',
    ...r.checks.map((c) => `| ${c.name} | ${MARK[c.status]} | ${cell(c.expected ?? '')} | ${cell(c.got ?? '')} | ${cell(c.explanation)} |`),
  ];
  const failed = r.checks.filter((c) => c.status === 'failed');
  if (failed.length) {
    out.push('', '## Failures', '');
    for (const c of failed) out.push(`### ${c.name}`, '', c.explanation, '', ...c.evidence.map((e) => `- \`${e.replace(/`/g, "'")}\``), '');
  }
  const audited = r.checks.filter((c) => c.audit?.length);
  if (audited.length) {
    out.push('', '## Audit records', '', 'What `GET /v1/tasks/{id}/audit` showed after each task check.', '');
    for (const c of audited) out.push(`### ${c.name}`, '', ...c.audit!.map((a) => `- \`${a.replace(/`/g, "'")}\``), '');
  }
  return out.join('\n') + '\n';
}

export function toJson(r: VerifyReport): string {
  return JSON.stringify(r, null, 2) + '\n';
}

export function writeReports(r: VerifyReport, targets: Array<{ kind: ReportKind; path: string }>): void {
  for (const t of targets) {
    mkdirSync(dirname(t.path), { recursive: true });
    writeFileSync(t.path, t.kind === 'junit' ? toJUnit(r) : t.kind === 'md' ? toMarkdown(r) : toJson(r));
  }
}
