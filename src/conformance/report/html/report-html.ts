import { INVARIANT_IDS, invariantInfo } from '../../../contract/invariants.js';
import type { ScenarioRun } from '../../runner/run-scenario.js';
import { cellOf, failureLines, passed, runPassed, type Certification } from '../summary.js';
import { buildArgument } from './argument.js';
import { layoutDiagram } from './diagram-layout.js';
import { renderDiagram } from './diagram-svg.js';
import { esc, slug } from './escape.js';
import { REPORT_CSS } from './style.js';

interface LabelledRun {
  label: string;
  id: string;
  run: ScenarioRun;
  replay: string[];
}

const MARK = { held: '✓', broken: '✗', not_applicable: '·' } as const;

function runs(c: Certification): LabelledRun[] {
  const base = `npx jobproof certify${c.clientArgs ? ` ${c.clientArgs}` : ''}`;
  const scale = c.timeScale && c.timeScale !== 1 ? ` --time-scale ${c.timeScale}` : '';
  const out: LabelledRun[] = c.scenarios.map((r) => ({
    label: r.scenario,
    id: `run-${slug(r.scenario)}`,
    run: r,
    replay: [`${base} --scenarios ${r.scenario} --seed ${c.seed}${scale}`],
  }));
  const p = c.property;
  if (p?.failed && p.counterexample) {
    out.push({
      label: `property run (seed ${p.seed}, path ${p.path})`,
      id: 'run-property',
      run: p.counterexample.run,
      replay: [
        ...(c.minimalOut ? [`${base} --scenario-file ${c.minimalOut}${scale}`] : []),
        `${base} --scenarios none --runs 1 --seed ${p.seed} --path ${p.path}${scale}`,
      ],
    });
  }
  // Failures first, then in the order they ran.
  return out
    .map((r, i) => ({ r, i }))
    .sort((a, b) => Number(runPassed(a.r.run)) - Number(runPassed(b.r.run)) || a.i - b.i)
    .map((x) => x.r);
}

function header(c: Certification): string {
  const ok = passed(c);
  const rows: Array<[string, string]> = [
    ['jobproof', c.version],
    ['client', c.client],
    ['runner', c.runner],
    ['dialect', c.dialect ?? 'jobproof (native)'],
    ['seed', String(c.seed)],
    ['time scale', String(c.timeScale ?? 1)],
    ['started', c.startedAt],
    ['wall time', `${(c.wallMs / 1000).toFixed(1)} s`],
    ['scenarios', `${c.scenarios.length} (${c.scenarios.filter(runPassed).length} passed)`],
    ['property runs', c.property ? `${c.property.runs} (${c.property.failed ? 'FAILED' : 'held'})` : 'none'],
  ];
  return `<header><h1>jobproof certificate</h1><p class="verdict ${ok ? 'pass' : 'fail'}" id="verdict">${ok ? 'CERTIFIED — every invariant held' : 'NOT CERTIFIED'}</p>
<table class="meta">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td class="mono">${esc(v)}</td></tr>`).join('')}</table></header>`;
}

function matrix(list: LabelledRun[]): string {
  const head = `<tr><th>scenario</th><th>result</th>${INVARIANT_IDS.map((id) => `<th title="${esc(invariantInfo(id).name)}">${id}</th>`).join('')}</tr>`;
  const body = list.map((r) => {
    const ok = runPassed(r.run);
    const cells = INVARIANT_IDS.map((id) => {
      const cell = cellOf(r.run, id);
      const href = cell === 'broken' ? `#${r.id}-${id}` : `#${r.id}`;
      return `<td class="c-${cell}"><a href="${href}" title="${esc(`${id} ${invariantInfo(id).name}: ${cell.replace('_', ' ')}`)}">${MARK[cell]}</a></td>`;
    });
    return `<tr><td class="name"><a href="#${r.id}">${esc(r.label)}</a></td><td class="${ok ? 'pass' : 'fail'}">${ok ? 'pass' : 'FAIL'}</td>${cells.join('')}</tr>`;
  });
  return `<h2>Scenarios × invariants</h2><table class="matrix" id="matrix">${head}${body.join('')}</table><p class="legend"><span>✓ held</span><span>✗ broken</span><span>· not applicable</span></p>`;
}

function failingRun(r: LabelledRun): string {
  const run = r.run;
  const broken = run.verdict.invariants.filter((i) => i.status === 'broken');
  const cited = broken.flatMap((i) => i.failures.flatMap((f) => f.evidence.journal_seqs));
  const diagram = renderDiagram(layoutDiagram(run.evidence, cited), `${r.id}-`);
  const seqLink = (seq: number) => `<a href="#${r.id}-seq-${seq}">#${seq}</a>`;
  const sections = broken.map((inv) => {
    const args = inv.failures.map((f) => {
      const a = buildArgument(f, run.evidence);
      return `<div class="argument"><p><b>Operation ${esc(f.operation_id)}</b></p><ol class="arg">
${a.premises.map((p) => `<li>${p.seq !== undefined ? `${seqLink(p.seq)} ` : ''}${esc(p.text)}</li>`).join('\n')}
</ol>
<p><span class="k">last correct step</span>${a.lastCorrect ? `${seqLink(a.lastCorrect.seq)} ${esc(a.lastCorrect.text)}` : 'none before it'}</p>
<p><span class="k">first step not explained</span>${a.firstUnexplained ? `${a.firstUnexplained.seq !== undefined ? `${seqLink(a.firstUnexplained.seq)} ` : ''}${esc(a.firstUnexplained.text)}` : '—'}</p>
<p><span class="k">therefore</span><b>${esc(a.conclusion)}</b></p></div>`;
    });
    return `<section id="${r.id}-${inv.id}" class="broken"><h4 class="fail">${inv.id} ${esc(inv.name)} — broken</h4><p class="muted">${esc(invariantInfo(inv.id).description)}</p>${args.join('')}</section>`;
  });
  const other = failureLines(run).filter((l) => !/^I\d+ /.test(l));
  return `<section class="run failing" id="${r.id}"><h3 class="fail">✗ ${esc(r.label)}</h3>
${other.map((l) => `<p class="fail">${esc(l)}</p>`).join('')}
<p>Replay: ${r.replay.map((cmd) => `<pre>${esc(cmd)}</pre>`).join('')}</p>
<div class="diagram">${diagram}</div>
<p class="legend"><span>→ request</span><span>⇢ answer</span><span class="fail">✗ answer lost</span><span>shaded: SIGKILL (red), SIGSTOP (amber), fault (orange), provider restart (purple)</span><span>hover an arrow for its journal entry</span></p>
${sections.join('\n')}
${run.diagnostics.length ? `<details><summary>client diagnostics (${run.diagnostics.length})</summary><pre>${esc(run.diagnostics.join('\n'))}</pre></details>` : ''}
</section>`;
}

function passingRun(r: LabelledRun): string {
  const held = r.run.verdict.invariants.filter((i) => i.status === 'held').map((i) => i.id);
  return `<details class="run passing" id="${r.id}"><summary class="pass">✓ ${esc(r.label)} — held: ${held.join(' ')}</summary>
<p>${(r.run.runMs / 1000).toFixed(1)} s run, ${r.run.evidence.journal.length} journal entries. Replay:</p>${r.replay.map((cmd) => `<pre>${esc(cmd)}</pre>`).join('')}</details>`;
}

/** The certificate as one self-contained HTML file: no network, no script needed; the JSON report rides along inside. */
export function toHtml(c: Certification, jsonReport: string): string {
  const list = runs(c);
  // Inside <script type="application/json"> nothing may close the element: every '<' is written as \u003c.
  const json = jsonReport.replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<title>jobproof certificate — ${passed(c) ? 'certified' : 'not certified'}</title><style>${REPORT_CSS}</style></head>
<body>
${header(c)}
${matrix(list)}
<h2>Runs</h2>
${list.map((r) => (runPassed(r.run) ? passingRun(r) : failingRun(r))).join('\n')}
<script type="application/json" id="jobproof-report">${json}</script>
</body></html>
`;
}
