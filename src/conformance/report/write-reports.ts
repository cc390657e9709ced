import { INVARIANT_IDS } from '../../contract/invariants.js';
import { parseReportSpec, writeReportFiles, type ReportDoc, type ReportKind, type ReportTarget } from '../../lib/report-writers.js';
import type { CertificationReport } from './schema.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { toHtml, type HtmlEvidence } from './html/report-html.js';

export { parseReportSpec, type ReportKind, type ReportTarget };

const CELL = { held: '✓', broken: '✗', not_applicable: '·' } as const;

/** The certification as the shared writers see it: the facts, the invariant totals, one row per case. */
export function certificationDoc(r: CertificationReport): ReportDoc {
  const c = r.counts;
  const ts = r.time_scale;
  return {
    title: 'jobproof certificate',
    suite: `jobproof ${r.version} — ${r.client}`,
    passed: r.passed,
    startedAt: r.started_at,
    wallMs: r.wall_ms,
    facts: [
      ['client', `\`${r.client}\``],
      ['runner', r.runner],
      ['jobproof', r.version],
      ['started', r.started_at],
      ['seed', String(r.seed)],
      [
        'time scale',
        `${ts.factor}× (${ts.source}${ts.client_start_ms !== null ? `; client start ${ts.client_start_ms} ms` : ''}${ts.provider_round_trip_ms !== null ? `; provider round trip ${ts.provider_round_trip_ms} ms` : ''})`,
      ],
      r.profile
        ? ['API profile', `${r.profile.name} (${r.profile.source}; jobs linked by key, client reference or the input's reference)`]
        : ['dialect', r.dialect === 'native' ? 'native (/v1/jobs)' : `${r.dialect} (batches linked by custom_id)`],
      ['webhooks', r.webhooks ? 'the client listens for webhooks' : 'polling only: scenarios that only test webhooks are skipped'],
      [
        'cases',
        `${r.cases.length}: ${c.pass} pass, ${c.fail} fail, ${c.not_exercised} not exercised, ${c.skipped} skipped, ${c.not_applicable} not applicable`,
      ],
      ['pass rule', r.pass_rule],
      ['wall time', `${(r.wall_ms / 1000).toFixed(1)} s`],
    ],
    sections: [
      {
        heading: 'Invariants',
        lines: [
          '| id | name | verdict | broken in |',
          '| --- | --- | --- | --- |',
          ...r.invariants.map((t) => `| ${t.id} | ${t.name} | ${t.status} | ${t.broken_in.join(', ')} |`),
        ],
      },
    ],
    caseColumns: ['kind', ...INVARIANT_IDS],
    cases: r.cases.map((k) => ({
      group: `jobproof.${k.kind}`,
      name: k.name,
      verdict: k.verdict,
      // JUnit shows a skipped case's message only: say which verdict it is.
      reason: k.reason && k.verdict !== 'fail' ? `${k.verdict}: ${k.reason}` : k.reason,
      lines: k.failures,
      failureType: 'invariant',
      timeMs: k.wall_ms,
      output: [],
      errors: k.diagnostics,
      cells: [k.kind, ...INVARIANT_IDS.map((id) => (k.invariants[id] ? CELL[k.invariants[id]] : ''))],
    })),
    legend:
      '✓ held · not applicable ✗ broken. Verdicts: pass, fail, not_exercised (the client took another correct path the fault never met), skipped (not run, with the reason), not_applicable.',
  };
}

export function toJson(r: CertificationReport): string {
  return JSON.stringify(r, null, 2) + '\n';
}

/** `html` targets get the certificate drawn from `evidence` (the runs behind the failing cases); the rest the shared writers. */
export function writeReports(
  r: CertificationReport,
  targets: ReportTarget[],
  evidence: HtmlEvidence = { runs: new Map(), clientArgs: '' },
): void {
  const json = toJson(r);
  writeReportFiles(
    certificationDoc(r),
    json,
    targets.filter((t) => t.kind !== 'html'),
  );
  for (const t of targets.filter((x) => x.kind === 'html')) {
    mkdirSync(dirname(t.path), { recursive: true });
    writeFileSync(t.path, toHtml(r, evidence, json));
  }
}
