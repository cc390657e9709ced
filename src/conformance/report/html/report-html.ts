import { INVARIANT_IDS, invariantInfo } from '../../../contract/invariants.js';
import type { ScenarioRun } from '../../runner/run-scenario.js';
import type { CertificationReport, ReportCase } from '../schema.js';
import { buildArgument } from './argument.js';
import { layoutDiagram } from './diagram-layout.js';
import { renderDiagram } from './diagram-svg.js';
import { esc, slug } from './escape.js';
import { REPORT_CSS } from './style.js';

/** What the JSON report leaves out and the certificate draws: each failing case's run (journal, harness, records). */
export interface HtmlEvidence {
  /** By case name: catalog scenario runs, and a property run's shrunk counterexample under its case's name. */
  runs: ReadonlyMap<string, ScenarioRun>;
  /** For the replay commands: `--client "CMD"`, `--in-process`, or '' (the reference client). */
  clientArgs: string;
  /** Where the property run's minimal failing schedule was written. */
  minimalOut?: string;
  /** Wire dialect of the provider (jobproof's own when absent). */
  dialect?: string;
}

interface LabelledCase {
  c: ReportCase;
  id: string;
  run: ScenarioRun | undefined;
  replay: string[];
}

const MARK = { held: '✓', broken: '✗', not_applicable: '·' } as const;
const failed = (c: ReportCase) => c.verdict === 'fail';

function labelled(r: CertificationReport, ev: HtmlEvidence): LabelledCase[] {
  const base = `npx jobproof certify${ev.clientArgs ? ` ${ev.clientArgs}` : ''}`;
  const scale = r.time_scale.factor !== 1 ? ` --time-scale ${r.time_scale.factor}` : '';
  const out = r.cases.map((c): LabelledCase => {
    const s = c.schedules;
    const replay =
      c.kind === 'schedules' && s
        ? [
            ...(ev.minimalOut ? [`${base} --scenario-file ${ev.minimalOut} --time-scale 1`] : []),
            `${base} --scenarios none --runs 1 --seed ${s.seed}${s.path ? ` --path ${s.path}` : ''}${scale}`,
          ]
        : c.kind === 'task'
          ? [`${base} --scenarios none --tasks`]
          : [`${base} --scenarios ${c.name} --seed ${r.seed}${scale}`];
    return { c, id: `run-${slug(c.name)}`, run: ev.runs.get(c.name), replay };
  });
  // Failures first, then in the order they ran.
  return out
    .map((x, i) => ({ x, i }))
    .sort((a, b) => Number(failed(b.x.c)) - Number(failed(a.x.c)) || a.i - b.i)
    .map((y) => y.x);
}

function header(r: CertificationReport, ev: HtmlEvidence): string {
  const ts = r.time_scale;
  const c = r.counts;
  const rows: Array<[string, string]> = [
    ['jobproof', r.version],
    ['client', r.client],
    ['runner', r.runner],
    ['dialect', ev.dialect ?? 'jobproof (native)'],
    ['seed', String(r.seed)],
    ['time scale', `${ts.factor}× (${ts.source})`],
    ['webhooks', r.webhooks ? 'the client listens' : 'polling only'],
    ['started', r.started_at],
    ['wall time', `${(r.wall_ms / 1000).toFixed(1)} s`],
    [
      'cases',
      `${r.cases.length}: ${c.pass} pass, ${c.fail} fail, ${c.not_exercised} not exercised, ${c.skipped} skipped, ${c.not_applicable} not applicable`,
    ],
    ['pass rule', r.pass_rule],
  ];
  return `<header><h1>jobproof certificate</h1><p class="verdict ${r.passed ? 'pass' : 'fail'}" id="verdict">${r.passed ? 'CERTIFIED' : 'NOT CERTIFIED'}</p>
<table class="meta">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td class="mono">${esc(v)}</td></tr>`).join('')}</table></header>`;
}

function matrix(list: LabelledCase[]): string {
  const head = `<tr><th>case</th><th>verdict</th>${INVARIANT_IDS.map((id) => `<th title="${esc(invariantInfo(id).name)}">${id}</th>`).join('')}</tr>`;
  const body = list.map((r) => {
    const cells = INVARIANT_IDS.map((id) => {
      const cell = r.c.invariants[id];
      if (!cell) return '<td></td>';
      const href = cell === 'broken' ? `#${r.id}-${id}` : `#${r.id}`;
      return `<td class="c-${cell}"><a href="${href}" title="${esc(`${id} ${invariantInfo(id).name}: ${cell.replace('_', ' ')}`)}">${MARK[cell]}</a></td>`;
    });
    return `<tr><td class="name"><a href="#${r.id}">${esc(r.c.name)}</a></td><td class="${failed(r.c) ? 'fail' : 'pass'}">${esc(r.c.verdict.replace('_', ' '))}</td>${cells.join('')}</tr>`;
  });
  return `<h2>Cases × invariants</h2><table class="matrix" id="matrix">${head}${body.join('')}</table><p class="legend"><span>✓ held</span><span>✗ broken</span><span>· not applicable</span><span>blank: not run</span></p>`;
}

function failingCase(r: LabelledCase): string {
  const run = r.run;
  const replay = `<p>Replay:</p>${r.replay.map((cmd) => `<pre>${esc(cmd)}</pre>`).join('')}`;
  const lines = r.c.failures.map((l) => `<li>${esc(l)}</li>`).join('');
  if (!run) {
    return `<section class="run failing" id="${r.id}"><h3 class="fail">✗ ${esc(r.c.name)}</h3>${r.c.reason ? `<p class="fail">${esc(r.c.reason)}</p>` : ''}<ul>${lines}</ul>${replay}</section>`;
  }
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
  const other = r.c.failures.filter((l) => !/^I\d+ /.test(l));
  return `<section class="run failing" id="${r.id}"><h3 class="fail">✗ ${esc(r.c.name)}</h3>
${other.map((l) => `<p class="fail">${esc(l)}</p>`).join('')}
${replay}
<div class="diagram">${diagram}</div>
<p class="legend"><span>→ request</span><span>⇢ answer</span><span class="fail">✗ answer lost</span><span>shaded: SIGKILL (red), SIGSTOP (amber), fault (orange), provider restart (purple)</span><span>hover an arrow for its journal entry</span></p>
${sections.join('\n')}
${r.c.diagnostics.length ? `<details><summary>client diagnostics (${r.c.diagnostics.length})</summary><pre>${esc(r.c.diagnostics.join('\n'))}</pre></details>` : ''}
</section>`;
}

function otherCase(r: LabelledCase): string {
  const held = Object.entries(r.c.invariants)
    .filter(([, v]) => v === 'held')
    .map(([k]) => k);
  return `<details class="run passing" id="${r.id}"><summary class="${r.c.verdict === 'pass' ? 'pass' : 'muted'}">${r.c.verdict === 'pass' ? '✓' : '·'} ${esc(r.c.name)} — ${esc(r.c.verdict.replace('_', ' '))}${held.length ? `; held: ${held.join(' ')}` : ''}</summary>
${r.c.reason ? `<p>${esc(r.c.reason)}</p>` : ''}<p>${r.c.run_ms !== null ? `${(r.c.run_ms / 1000).toFixed(1)} s run. ` : ''}Replay:</p>${r.replay.map((cmd) => `<pre>${esc(cmd)}</pre>`).join('')}</details>`;
}

/** The certificate as one self-contained HTML file: no network, no script needed; the JSON report rides along inside. */
export function toHtml(r: CertificationReport, ev: HtmlEvidence, jsonReport: string): string {
  const list = labelled(r, ev);
  // Inside <script type="application/json"> nothing may close the element: every '<' is written as \u003c.
  const json = jsonReport.replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">
<title>jobproof certificate — ${r.passed ? 'certified' : 'not certified'}</title><style>${REPORT_CSS}</style></head>
<body>
${header(r, ev)}
${matrix(list)}
<h2>Cases</h2>
${list.map((x) => (failed(x.c) ? failingCase(x) : otherCase(x))).join('\n')}
<script type="application/json" id="jobproof-report">${json}</script>
</body></html>
`;
}
