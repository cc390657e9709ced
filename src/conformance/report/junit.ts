import type { ScenarioRun } from '../runner/run-scenario.js';
import { failureLines, type Certification } from './summary.js';

const esc = (s: string) => s.replace(/[<>&"']/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[ch]!).replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, '');

function testcase(run: ScenarioRun, classname: string): string {
  const lines = failureLines(run);
  const time = (run.wallMs / 1000).toFixed(3);
  if (lines.length === 0) return `    <testcase classname="${esc(classname)}" name="${esc(run.scenario)}" time="${time}"/>`;
  const first = lines[0]!;
  return [
    `    <testcase classname="${esc(classname)}" name="${esc(run.scenario)}" time="${time}">`,
    `      <failure message="${esc(first)}" type="invariant">${esc(lines.join('\n'))}</failure>`,
    run.diagnostics.length ? `      <system-err>${esc(run.diagnostics.join('\n'))}</system-err>` : '',
    `    </testcase>`,
  ].filter(Boolean).join('\n');
}

/** JUnit XML: one testcase per scenario (and one for the property run), failures naming the broken invariants. */
export function toJUnit(c: Certification): string {
  const cases = c.scenarios.map((r) => testcase(r, 'jobproof.catalog'));
  let failures = c.scenarios.filter((r) => failureLines(r).length > 0).length;
  if (c.property) {
    const p = c.property;
    if (p.failed && p.counterexample) {
      failures++;
      cases.push(testcase({ ...p.counterexample.run, scenario: `property (${p.runs} runs, seed ${p.seed})` }, 'jobproof.property'));
    } else {
      cases.push(`    <testcase classname="jobproof.property" name="property (${p.runs} runs, seed ${p.seed})" time="${(p.wallMs / 1000).toFixed(3)}"/>`);
    }
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="jobproof certify" tests="${cases.length}" failures="${failures}" time="${(c.wallMs / 1000).toFixed(3)}">`,
    `  <testsuite name="jobproof ${esc(c.version)} — ${esc(c.client)}" tests="${cases.length}" failures="${failures}" errors="0" timestamp="${c.startedAt}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
