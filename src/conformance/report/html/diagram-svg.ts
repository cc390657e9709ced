import type { Arrow, DiagramLayout } from './diagram-layout.js';
import { esc } from './escape.js';

const COLORS = { kill: '#cf222e', pause: '#9a6700', fault: '#bc4c00', restart: '#8250df' } as const;

function arrowSvg(a: Arrow): string {
  const cls = `${a.kind}${a.lost ? ' lost' : ''}${a.cited ? ' cited' : ''}`;
  const dir = a.x2 >= a.x1 ? 1 : -1;
  const lx = (a.x1 + a.x2) / 2;
  const parts = [
    `<line class="${cls}" x1="${a.x1}" y1="${a.y1}" x2="${a.x2}" y2="${a.y2}"${a.lost ? '' : ' marker-end="url(#head)"'}${a.kind === 'answer' ? ' stroke-dasharray="5 3"' : ''}/>`,
    `<text class="lbl${a.lost ? ' lost' : ''}" x="${lx}" y="${a.y1 - 3}" text-anchor="middle">${esc(a.label)}</text>`,
  ];
  if (a.lost) {
    const s = 6;
    parts.push(
      `<path class="cross" d="M${a.x2 - s} ${a.y2 - s} L${a.x2 + s} ${a.y2 + s} M${a.x2 - s} ${a.y2 + s} L${a.x2 + s} ${a.y2 - s}"><title>answer lost</title></path>`,
    );
  }
  void dir;
  return parts.join('');
}

/**
 * The diagram as inline SVG (no script): one group per journal entry with its id `<prefix>seq-N` and the entry as
 * a <title> tooltip; cited entries drawn in red; lost answers end in a cross.
 */
export function renderDiagram(d: DiagramLayout, idPrefix: string): string {
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="seq" width="${d.width}" height="${d.height}" viewBox="0 0 ${d.width} ${d.height}" role="img" aria-label="sequence diagram">`,
  );
  out.push(
    '<defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="currentColor"/></marker></defs>',
  );
  for (const w of d.windows) {
    out.push(
      `<rect class="win ${w.kind}" x="${w.x}" y="${w.y1}" width="${w.width}" height="${Math.max(2, w.y2 - w.y1)}" fill="${COLORS[w.kind]}" fill-opacity="0.18"><title>${esc(w.label)}</title></rect>`,
    );
  }
  for (const l of d.lanes) {
    out.push(
      `<g class="lane ${l.kind}"><text x="${l.x}" y="20" text-anchor="middle" class="lane-label">${esc(l.label)}</text><line x1="${l.x}" y1="28" x2="${l.x}" y2="${d.height - 10}" class="lifeline"/></g>`,
    );
  }
  const bySeq = new Map<number, string[]>();
  for (const a of d.arrows) bySeq.set(a.seq, [...(bySeq.get(a.seq) ?? []), arrowSvg(a)]);
  for (const n of d.notes)
    bySeq.set(n.seq, [...(bySeq.get(n.seq) ?? []), `<text class="note" x="${n.x}" y="${n.y + 4}">${esc(n.text)}</text>`]);
  const titles = new Map<number, string>([
    ...d.arrows.map((a) => [a.seq, a.title] as const),
    ...d.notes.map((n) => [n.seq, n.title] as const),
  ]);
  for (const [seq, parts] of [...bySeq].sort((a, b) => a[0] - b[0])) {
    out.push(`<g id="${esc(idPrefix)}seq-${seq}" class="entry"><title>${esc(titles.get(seq) ?? '')}</title>${parts.join('')}</g>`);
  }
  if (d.elided)
    out.push(`<text x="10" y="${d.height - 8}" class="note">${d.elided} journal entries far from the cited ones are left out</text>`);
  out.push('</svg>');
  return out.join('\n');
}
