import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseReportSpec, type ReportKind } from './report-spec.js';

/**
 * The one report-writer family: `certify` and `verify-provider` both describe their run as a ReportDoc, and the
 * JUnit and Markdown renderings (and the file writing) are done here once. JSON is each command's own documented
 * shape, passed in already serialised.
 */
export { parseReportSpec, type ReportKind };
export type ReportTarget = { kind: ReportKind; path: string };

/** A verdict as the writers know it: pass, fail, or anything else (rendered as JUnit <skipped> with its reason). */
export interface DocCase {
  group: string;
  name: string;
  verdict: string;
  reason: string | null;
  /** Failure lines (first one is the JUnit message). */
  lines: string[];
  timeMs: number;
  /** Evidence a person reads (JUnit system-out). */
  output: string[];
  /** Diagnostics (JUnit system-err). */
  errors: string[];
  /** JUnit failure type (default: the group). */
  failureType?: string;
  /** Extra Markdown table cells after the verdict, matching `ReportDoc.caseColumns`. */
  cells?: string[];
}

export interface ReportDoc {
  /** e.g. `jobproof certify`, `jobproof verify-provider`. */
  title: string;
  suite: string;
  passed: boolean;
  startedAt: string;
  wallMs: number;
  /** Key facts, one Markdown table row each. */
  facts: Array<[string, string]>;
  /** Markdown sections before the cases (e.g. the invariant totals). */
  sections?: Array<{ heading: string; lines: string[] }>;
  caseColumns?: string[];
  cases: DocCase[];
  legend?: string;
}

const esc = (s: string) =>
  s
    .replace(/[<>&"']/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch]!)
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, '');

function testcase(c: DocCase): string {
  const head = `    <testcase classname="${esc(c.group)}" name="${esc(c.name)}" time="${(c.timeMs / 1000).toFixed(3)}"`;
  const inner: string[] = [];
  if (c.verdict === 'fail') {
    const lines = c.lines.length ? c.lines : [c.reason ?? 'failed'];
    inner.push(`      <failure message="${esc(lines[0]!)}" type="${esc(c.failureType ?? c.group)}">${esc(lines.join('\n'))}</failure>`);
  } else if (c.verdict !== 'pass') {
    inner.push(`      <skipped message="${esc(c.reason ?? c.verdict)}"/>`);
  }
  if (c.output.length) inner.push(`      <system-out>${esc(c.output.join('\n'))}</system-out>`);
  if (c.errors.length) inner.push(`      <system-err>${esc(c.errors.join('\n'))}</system-err>`);
  return inner.length ? [`${head}>`, ...inner, '    </testcase>'].join('\n') : `${head}/>`;
}

export function toJUnit(d: ReportDoc): string {
  const failures = d.cases.filter((c) => c.verdict === 'fail').length;
  const skipped = d.cases.filter((c) => c.verdict !== 'fail' && c.verdict !== 'pass').length;
  const counts = `tests="${d.cases.length}" failures="${failures}" skipped="${skipped}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${esc(d.title)}" ${counts} time="${(d.wallMs / 1000).toFixed(3)}">`,
    `  <testsuite name="${esc(d.suite)}" ${counts} errors="0" timestamp="${d.startedAt}">`,
    ...d.cases.map(testcase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const MARK: Record<string, string> = { pass: '✓ pass', fail: '✗ FAIL' };

export function toMarkdown(d: ReportDoc): string {
  const cols = d.caseColumns ?? [];
  const out: string[] = [
    `# ${d.title} — ${d.passed ? 'PASSED' : 'FAILED'}`,
    '',
    '| | |',
    '| --- | --- |',
    ...d.facts.map(([k, v]) => `| ${cell(k)} | ${cell(v)} |`),
    '',
  ];
  for (const s of d.sections ?? []) out.push(`## ${s.heading}`, '', ...s.lines, '');
  out.push(
    '## Cases',
    '',
    `| case | verdict | ${cols.map(cell).join(' | ')}${cols.length ? ' | ' : ''}reason |`,
    `| --- | --- | ${cols.map(() => '---').join(' | ')}${cols.length ? ' | ' : ''}--- |`,
    ...d.cases.map(
      (c) =>
        `| ${cell(c.name)} | ${MARK[c.verdict] ?? `· ${c.verdict}`} | ${(c.cells ?? []).map(cell).join(' | ')}${cols.length ? ' | ' : ''}${cell(c.reason ?? '')} |`,
    ),
  );
  if (d.legend) out.push('', d.legend);
  const failing = d.cases.filter((c) => c.verdict === 'fail');
  if (failing.length) {
    out.push('', '## Failures', '');
    for (const c of failing)
      out.push(
        `### ${c.name}`,
        '',
        ...(c.lines.length ? c.lines : [c.reason ?? 'failed']).map((l) => `- ${l}`),
        ...c.output.map((e) => `- \`${e.replace(/`/g, "'")}\``),
        '',
      );
  }
  return out.join('\n') + '\n';
}

/** Write every requested report; `json` is the caller's own serialised shape. */
export function writeReportFiles(doc: ReportDoc, json: string, targets: ReportTarget[]): void {
  for (const t of targets) {
    mkdirSync(dirname(t.path), { recursive: true });
    writeFileSync(t.path, t.kind === 'junit' ? toJUnit(doc) : t.kind === 'md' ? toMarkdown(doc) : json.endsWith('\n') ? json : json + '\n');
  }
}
