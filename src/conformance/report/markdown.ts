import { INVARIANT_IDS } from '../../contract/invariants.js';
import { cellOf, failureLines, invariantTotals, passed, runPassed, type Cell, type Certification } from './summary.js';

const MARK: Record<Cell, string> = { held: '✓', broken: '✗', not_applicable: '·' };

/** The certificate: what was run, with which seed, and the verdict per scenario and invariant. */
export function toMarkdown(c: Certification): string {
  const ok = passed(c);
  const out: string[] = [
    `# jobproof certificate — ${ok ? 'PASSED' : 'FAILED'}`,
    '',
    `| | |`,
    `| --- | --- |`,
    `| client | \`${c.client}\` |`,
    `| runner | ${c.runner} |`,
    `| jobproof | ${c.version} |`,
    `| started | ${c.startedAt} |`,
    `| seed | ${c.seed} |`,
    `| scenarios | ${c.scenarios.length} (${c.scenarios.filter(runPassed).length} passed) |`,
    c.property ? `| property runs | ${c.property.runs} (${c.property.failed ? 'FAILED' : 'passed'}) |` : `| property runs | none |`,
    `| wall time | ${(c.wallMs / 1000).toFixed(1)} s |`,
    '',
    '## Invariants',
    '',
    '| id | name | verdict | broken in |',
    '| --- | --- | --- | --- |',
    ...invariantTotals(c).map((t) => `| ${t.id} | ${t.name} | ${t.status} | ${t.brokenIn.join(', ')} |`),
    '',
    '## Scenarios',
    '',
    `| scenario | result | ${INVARIANT_IDS.join(' | ')} |`,
    `| --- | --- | ${INVARIANT_IDS.map(() => '---').join(' | ')} |`,
    ...c.scenarios.map((r) => `| ${r.scenario} | ${runPassed(r) ? 'pass' : 'FAIL'} | ${INVARIANT_IDS.map((id) => MARK[cellOf(r, id)]).join(' | ')} |`),
    '',
    '✓ held · not applicable ✗ broken',
  ];
  const failing = c.scenarios.filter((r) => failureLines(r).length > 0);
  if (failing.length || c.property?.failed) {
    out.push('', '## Failures', '');
    for (const r of failing) out.push(`### ${r.scenario}`, '', ...failureLines(r).map((l) => `- ${l}`), '');
    if (c.property?.failed && c.property.counterexample) {
      out.push(`### property run (seed ${c.property.seed}, path ${c.property.path})`, '', ...failureLines(c.property.counterexample.run).map((l) => `- ${l}`), '');
    }
  }
  return out.join('\n') + '\n';
}
